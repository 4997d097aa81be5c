import HaraldCore

/// A gateway's name in the fleet (its MQTT client id, `--id NAME`).
public typealias GatewayID = String

/// One advertisement one gateway heard.
public struct FleetObservation: Hashable, Sendable {
    /// The gateway that heard it.
    public var gateway: GatewayID
    /// The advertiser.
    public var device: BluetoothAddress
    /// The RSSI the gateway measured, in dBm.
    public var rssi: Double
    /// When it was heard: time since any fixed origin, the same for every call (a monotonic
    /// clock's reading; the arbiter never reads a clock).
    public var time: Duration
    /// The device's advertising interval, when the gateway knows it; once known for a device,
    /// its stale time is the policy's ``FleetPolicy/staleTime``.
    public var advertisingInterval: Duration?

    /// `gateway` heard `device` at `rssi` dBm at `time`.
    public init(gateway: GatewayID, device: BluetoothAddress, rssi: Double, time: Duration, advertisingInterval: Duration? = nil) {
        self.gateway = gateway
        self.device = device
        self.rssi = rssi
        self.time = time
        self.advertisingInterval = advertisingInterval
    }
}

/// What the fleet knows of one device.
public struct FleetDevice: Hashable, Sendable {
    /// The device's address.
    public var address: BluetoothAddress
    /// The gateway whose advertisements stand for the device.
    public var owner: GatewayID
    /// The smoothed RSSI (dBm) of each online gateway that heard the device within its stale time.
    public var rssi: [GatewayID: Double]
    /// When any gateway last heard it.
    public var lastHeard: Duration
    /// Whether its advertising interval is known (its stale time is then the shorter one).
    public var hasKnownInterval: Bool
}

/// A change the fleet publishes.
public enum FleetEvent: Hashable, Sendable {
    /// A device was heard for the first time (or again after it went away); `owner` heard it.
    case arrived(BluetoothAddress, owner: GatewayID)
    /// A device's owner changed: a stronger gateway took it, or its owner went offline or stopped
    /// hearing it.
    case ownerChanged(BluetoothAddress, from: GatewayID, to: GatewayID)
    /// A device is away: no online gateway heard it within its stale time (or it was the oldest
    /// when the device limit was reached). It is forgotten.
    case away(BluetoothAddress)
    /// A gateway said it is online (its retained status message).
    case gatewayOnline(GatewayID)
    /// A gateway went offline (its last will): its devices moved to the next best gateway or
    /// went away.
    case gatewayOffline(GatewayID)
}

/// Many gateways hearing the same devices, as one: which gateway owns each device, the smoothed
/// RSSI per gateway, presence, and gateway liveness. A value: feed it observations, liveness and
/// the time, and publish the events it returns.
///
/// Ownership follows ``FleetPolicy``: the first gateway to hear a device owns it; another takes
/// it only when its smoothed RSSI is more than the switch threshold above the owner's (plus the
/// reclaim deadband when it lost the device before); an owner that has not heard the device
/// within the stale time, or that goes offline, hands it to the online gateway with the best
/// smoothed RSSI that still hears it. Observations from a gateway known to be offline are
/// ignored until it is online again. Memory is bounded: devices not heard within their stale
/// time are forgotten at ``expire(at:)``, and at most ``FleetPolicy/maximumDevices`` are kept.
public struct FleetArbiter: Sendable {
    /// The rules in force.
    public let policy: FleetPolicy

    private struct Sighting: Sendable {
        var smoothed: Double
        var lastHeard: Duration
    }

    private struct DeviceState: Sendable {
        var owner: GatewayID
        var sightings: [GatewayID: Sighting]
        /// Gateways that lost the device and have not owned it since (they pay the deadband).
        var demoted: Set<GatewayID> = []
        var lastHeard: Duration
        var hasKnownInterval: Bool
    }

    private var states: [BluetoothAddress: DeviceState] = [:]
    private var offlineGateways: Set<GatewayID> = []

    /// An arbiter with no devices, following `policy`.
    public init(policy: FleetPolicy = FleetPolicy()) {
        self.policy = policy
    }

    // MARK: Reading

    /// The device at `address`, if tracked.
    public func device(_ address: BluetoothAddress) -> FleetDevice? {
        states[address].map { view(of: $0, address: address) }
    }

    /// Every tracked (present) device, ordered by address.
    public var devices: [FleetDevice] {
        states.keys.sorted().compactMap { device($0) }
    }

    /// The gateways known to be offline.
    public var offline: Set<GatewayID> { offlineGateways }

    // MARK: Input

    /// Takes one advertisement heard by one gateway; returns what changed.
    public mutating func observe(_ observation: FleetObservation) -> [FleetEvent] {
        let gateway = observation.gateway
        guard !offlineGateways.contains(gateway), observation.rssi.isFinite else { return [] }
        var events: [FleetEvent] = []
        let address = observation.device
        guard var state = states[address] else {
            if states.count >= policy.maximumDevices, let oldest = states.min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key {
                states[oldest] = nil
                events.append(.away(oldest))
            }
            states[address] = DeviceState(
                owner: gateway, sightings: [gateway: Sighting(smoothed: observation.rssi, lastHeard: observation.time)],
                lastHeard: observation.time, hasKnownInterval: observation.advertisingInterval != nil)
            events.append(.arrived(address, owner: gateway))
            return events
        }
        let now = max(observation.time, state.lastHeard)
        state.lastHeard = now
        if observation.advertisingInterval != nil { state.hasKnownInterval = true }
        if let previous = state.sightings[gateway], now - previous.lastHeard <= staleTime(of: state) {
            let factor = policy.smoothingFactor
            state.sightings[gateway] = Sighting(smoothed: factor * observation.rssi + (1 - factor) * previous.smoothed, lastHeard: now)
        } else {
            // First reading from this gateway, or the first after it stopped hearing the device.
            state.sightings[gateway] = Sighting(smoothed: observation.rssi, lastHeard: now)
        }
        if gateway != state.owner, let event = arbitrate(&state, address: address, challenger: gateway, now: now) {
            events.append(event)
        }
        states[address] = state
        return events
    }

    /// A gateway's liveness changed (its retained online message, or its last will). Going
    /// offline moves each device it owned to the best other gateway that hears it, or makes it
    /// away; coming online again lets its observations count.
    public mutating func setGateway(_ gateway: GatewayID, online: Bool) -> [FleetEvent] {
        if online {
            guard offlineGateways.remove(gateway) != nil else { return [] }
            return [.gatewayOnline(gateway)]
        }
        guard offlineGateways.insert(gateway).inserted else { return [] }
        var events: [FleetEvent] = [.gatewayOffline(gateway)]
        for address in states.keys.sorted() {
            guard var state = states[address] else { continue }
            state.sightings[gateway] = nil
            state.demoted.remove(gateway)
            if state.owner == gateway {
                guard let next = Self.best(in: state.sightings) else {
                    states[address] = nil
                    events.append(.away(address))
                    continue
                }
                state.owner = next
                events.append(.ownerChanged(address, from: gateway, to: next))
            }
            states[address] = state
        }
        return events
    }

    /// Makes devices not heard within their stale time away (and forgets them), and drops each
    /// gateway's reading of a device it has not heard within that time, moving the device to
    /// the best gateway that still hears it. Call it periodically with the current time.
    public mutating func expire(at now: Duration) -> [FleetEvent] {
        var events: [FleetEvent] = []
        for address in states.keys.sorted() {
            guard var state = states[address] else { continue }
            let stale = staleTime(of: state)
            state.sightings = state.sightings.filter { now - $0.value.lastHeard <= stale }
            guard !state.sightings.isEmpty else {
                states[address] = nil
                events.append(.away(address))
                continue
            }
            if state.sightings[state.owner] == nil, let next = Self.best(in: state.sightings) {
                events.append(.ownerChanged(address, from: state.owner, to: next))
                state.owner = next
            }
            states[address] = state
        }
        return events
    }

    // MARK: Rules

    private func staleTime(of state: DeviceState) -> Duration {
        state.hasKnownInterval ? policy.staleTime : policy.unknownIntervalStaleTime
    }

    /// Whether `challenger` takes the device from its owner; the event when it does.
    private func arbitrate(_ state: inout DeviceState, address: BluetoothAddress, challenger: GatewayID, now: Duration) -> FleetEvent? {
        guard let candidate = state.sightings[challenger] else { return nil }
        let owner = state.owner
        let takeOver: Bool
        if let current = state.sightings[owner], now - current.lastHeard <= staleTime(of: state) {
            let margin = policy.switchThreshold + (state.demoted.contains(challenger) ? policy.reclaimDeadband : 0)
            takeOver = candidate.smoothed - margin > current.smoothed
            if takeOver { state.demoted.insert(owner) }
        } else {
            // The owner no longer hears the device: whoever does takes it, with no RSSI contest
            // (and nothing to reclaim: the owner did not lose it to a stronger gateway).
            state.sightings[owner] = nil
            takeOver = true
        }
        guard takeOver else { return nil }
        state.demoted.remove(challenger)
        state.owner = challenger
        return .ownerChanged(address, from: owner, to: challenger)
    }

    /// The gateway with the strongest smoothed RSSI (ties: the first by name).
    private static func best(in sightings: [GatewayID: Sighting]) -> GatewayID? {
        sightings.min { lhs, rhs in
            lhs.value.smoothed != rhs.value.smoothed ? lhs.value.smoothed > rhs.value.smoothed : lhs.key < rhs.key
        }?.key
    }

    private func view(of state: DeviceState, address: BluetoothAddress) -> FleetDevice {
        FleetDevice(
            address: address, owner: state.owner, rssi: state.sightings.mapValues(\.smoothed), lastHeard: state.lastHeard,
            hasKnownInterval: state.hasKnownInterval)
    }
}
