import HaraldCore
import HaraldFleet
import HaraldMQTT

/// What a fleet view did with one message or one tick: the changes, and what to publish.
struct FleetStep: Sendable {
    var events: [FleetEvent] = []
    var messages: [FleetMessage] = []
}

/// The fleet view's state without input or output: the arbiter, each gateway's liveness, and
/// what was last published for each device. A value: feed it messages and ticks with the time,
/// publish what it returns (``FleetView`` does).
struct FleetTracker: Sendable {
    let topics: FleetTopics
    let publishing: FleetPublishingPolicy
    private(set) var arbiter: FleetArbiter
    /// Each known gateway: true online, false offline. At most `publishing.maximumGateways`.
    private(set) var gateways: [GatewayID: Bool] = [:]
    private(set) var statistics = FleetStatistics()

    /// What was last published for a present device: when, and its RSSI per gateway to the dB.
    private struct Publication: Sendable {
        var time: Duration
        var rssi: [GatewayID: Int]
    }

    /// One entry per device the arbiter tracks (removed when it goes away).
    private var publications: [BluetoothAddress: Publication] = [:]

    init(topics: FleetTopics, policy: FleetPolicy, publishing: FleetPublishingPolicy) {
        self.topics = topics
        self.publishing = publishing
        arbiter = FleetArbiter(policy: policy)
    }

    /// The statistics with the current device and gateway counts.
    var currentStatistics: FleetStatistics {
        var current = statistics
        current.devices = publications.count
        current.gateways = gateways.count
        return current
    }

    // MARK: Input

    /// Takes one message from the broker, received at `now`.
    mutating func receive(_ message: MQTTMessage, at now: Duration) -> FleetStep {
        statistics.messages += 1
        switch FleetInput(message, topics: topics) {
        case .sighting(let sighting):
            guard admit(sighting.gateway) else { return FleetStep() }
            statistics.sightings += 1
            var step = FleetStep()
            // A gateway reporting is alive, whether or not it publishes an availability topic.
            if gateways[sighting.gateway] == nil { step = setGateway(sighting.gateway, online: true, at: now) }
            let kind = sighting.kind ?? knownKind(of: sighting.addressValue)
            guard let address = BluetoothAddress(value: sighting.addressValue, kind: kind) else { return step }
            let observation = FleetObservation(gateway: sighting.gateway, device: address, rssi: sighting.rssi, time: now)
            apply(arbiter.observe(observation), at: now, to: &step)
            return step
        case .availability(let gateway, let online):
            guard admit(gateway) else { return FleetStep() }
            statistics.availabilityMessages += 1
            return setGateway(gateway, online: online, at: now)
        case .withoutRSSI(let gateway):
            guard admit(gateway) else { return FleetStep() }
            statistics.reportsWithoutRSSI += 1
        case .own: statistics.own += 1
        case .malformed: statistics.malformed += 1
        case .cleared: statistics.cleared += 1
        }
        return FleetStep()
    }

    /// Looks for stale devices and publishes RSSI updates that are due; call it every
    /// ``FleetPublishingPolicy/tickInterval``.
    mutating func tick(at now: Duration) -> FleetStep {
        var step = FleetStep()
        apply(arbiter.expire(at: now), at: now, to: &step)
        for address in publications.keys.sorted() {
            guard let publication = publications[address], now - publication.time >= publishing.rssiUpdateInterval,
                let device = arbiter.device(address), Self.wholeDecibels(device) != publication.rssi
            else { continue }
            step.messages.append(view(of: device, at: now, delivery: .droppable))
        }
        return step
    }

    /// Every present device's view and the gateways' liveness, again: after a new connection
    /// (the broker may have restarted without its retained messages).
    mutating func republish(at now: Duration) -> FleetStep {
        var step = FleetStep()
        for address in publications.keys.sorted() {
            guard let device = arbiter.device(address) else { continue }
            step.messages.append(view(of: device, at: now, delivery: .kept))
        }
        if !gateways.isEmpty { step.messages.append(gatewaysMessage) }
        return step
    }

    // MARK: Rules

    /// Whether messages from `gateway` are taken: a known gateway, or room for one more.
    private mutating func admit(_ gateway: GatewayID) -> Bool {
        guard gateways[gateway] == nil, gateways.count >= publishing.maximumGateways else { return true }
        statistics.refusedGateways += 1
        return false
    }

    /// A report without `address_type`: random when a gateway already reported these 48 bits as
    /// random (one device, one view), otherwise public.
    private func knownKind(of value: UInt64) -> BluetoothAddress.Kind {
        if let random = BluetoothAddress(value: value, kind: .random), arbiter.device(random) != nil { return .random }
        return .public
    }

    private mutating func setGateway(_ gateway: GatewayID, online: Bool, at now: Duration) -> FleetStep {
        var step = FleetStep()
        let wasKnown = gateways[gateway] != nil
        // The arbiter's own liveness events are replaced by the fleet's, which also tell a
        // gateway's first appearance.
        let changes = arbiter.setGateway(gateway, online: online).filter {
            switch $0 {
            case .gatewayOnline, .gatewayOffline: false
            default: true
            }
        }
        if gateways[gateway] != online {
            gateways[gateway] = online
            step.events.append(online ? .gatewayOnline(gateway) : .gatewayOffline(gateway))
            step.messages.append(gatewaysMessage)
        } else if !wasKnown {
            gateways[gateway] = online
        }
        apply(changes, at: now, to: &step)
        return step
    }

    private var gatewaysMessage: FleetMessage {
        FleetMessage(topic: topics.gateways, payload: FleetViewPayload.gateways(gateways), retain: true, delivery: .kept)
    }

    /// Turns the arbiter's events into publications: a view on arrival and owner change; on
    /// away, a live (not retained) `present: false`, then an empty retained payload that clears
    /// the device's view from the broker.
    private mutating func apply(_ events: [FleetEvent], at now: Duration, to step: inout FleetStep) {
        for event in events {
            step.events.append(event)
            switch event {
            case .arrived(let address, _), .ownerChanged(let address, _, _):
                guard let device = arbiter.device(address) else { continue }
                step.messages.append(view(of: device, at: now, delivery: .kept))
            case .away(let address):
                publications[address] = nil
                step.messages.append(FleetMessage(topic: topics.device(address), payload: FleetViewPayload.away(address), retain: false, delivery: .kept))
                step.messages.append(FleetMessage(topic: topics.device(address), payload: [], retain: true, delivery: .kept))
            case .gatewayOnline, .gatewayOffline:
                continue
            }
        }
    }

    private mutating func view(of device: FleetDevice, at now: Duration, delivery: MQTTDeliveryClass) -> FleetMessage {
        publications[device.address] = Publication(time: now, rssi: Self.wholeDecibels(device))
        return FleetMessage(topic: topics.device(device.address), payload: FleetViewPayload.present(device, at: now), retain: true, delivery: delivery)
    }

    private static func wholeDecibels(_ device: FleetDevice) -> [GatewayID: Int] {
        device.rssi.mapValues { Int($0.rounded()) }
    }
}

extension FleetTracker {
    /// One message handed to the MQTT client.
    mutating func countPublished() { statistics.published += 1 }
    /// One message the MQTT client refused.
    mutating func countRefused() { statistics.refused += 1 }
}
