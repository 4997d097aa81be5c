import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSMP

/// A simulated radio world: a central (the phone, the gateway) and virtual peripherals, on a
/// ``VirtualClock``.
///
/// ``backend`` is a `CentralBackend` for the public API: `Central(backend: simulator.backend,
/// clock: clock)` scans, connects and talks GATT with the virtual devices exactly as with real
/// ones. Run the code inside a ``Simulation`` on the same clock so everything happens in virtual
/// time, deterministically.
///
/// - Radio: ``setRadioState(_:)`` switches it (powering off drops every link and ends scans
///   with `BluetoothError/radioUnavailable(_:)`).
/// - Scanning: each in-range device is heard once per advertising interval (with a fixed
///   per-device phase and a deterministic 0–10 ms advertising delay), at its RSSI.
/// - Connecting waits for the device's next advertising event; a device out of range or not
///   connectable makes the attempt time out (`BluetoothError/timeout(operation:after:)`).
///   Each connection gets a ``SimulatedLink`` with ``linkParameters``, a central bearer running
///   Harald's GATT client and a peripheral bearer attached to the device's GATT server (through
///   a fault layer), then an MTU exchange.
/// - Pairing happens as on a phone: the first refusal for lack of security (Insufficient
///   Authentication/Encryption) starts it, and the device's ``PairingResponse`` decides the outcome.
///   A world made with a `SecurityConfiguration` runs Harald's own Security Manager instead, as
///   the HCI backend does, against devices whose response is ``PairingResponse/securityManager(_:)``:
///   real pairing in virtual time, bonds in the configuration's store, re-encryption on the next
///   connection, and ``forgetBonds(of:)`` for a device that lost its keys.
/// - Database changes: every device's GATT server has the Generic Attribute service with Service
///   Changed (added after the device's own services unless its server configuration says
///   otherwise); ``PeripheralRuntime/changeServices(removing:adding:)`` changes a device's
///   services while connected and indicates the change to the centrals that turned it on, which
///   connections do before their first service discovery (``watchesServiceChanged``).
/// - Faults and statistics per connection: ``connections``, ``SimulatedConnection``.
public final class Simulator: Sendable {
    // Every mutable part of the world is in `state`; continuations are resumed and links closed
    // after its lock is released.
    /// The clock everything runs on.
    public let clock: VirtualClock
    /// The system's automatic reconnections in flight (``ConnectionOptions/enableAutoReconnect``).
    let reconnections = SystemReconnections()
    /// The timing model of every new connection.
    public let linkParameters: LinkParameters
    /// Whether connections exchange MTUs when they open (true, as phones do).
    public let exchangesMTUOnConnect: Bool
    /// Whether connections turn on the peripheral's Service Changed indications before their
    /// first service discovery (true; see `GATTConnection/open(bearer:peripheral:clock:exchangeMTU:watchesServiceChanged:timeout:)`).
    public let watchesServiceChanged: Bool
    /// The central's Security Manager set-up (bonds, pairing, agent), when it runs Harald's.
    public let security: SecurityConfiguration?
    /// The keys each device keeps for the centrals it bonded with.
    let deviceBonds = Locked(DeviceBondTable())
    /// The central's address as devices see it (its identity from the bond store).
    private let centralAddress = Locked<BluetoothAddress?>(nil)

    struct Device {
        var description: VirtualPeripheral
        let runtime: PeripheralRuntime
        let server: GATTServer
        let behaviour: PeripheralBehaviour
        /// A fixed offset of its advertising events, so devices do not advertise in lockstep.
        let phase: Duration
        /// Its place among the devices: a device added later has a larger one (a scan breaks
        /// ties between simultaneous advertising events by it).
        let order: UInt64
    }

    private struct WorldState {
        var radio: RadioState = .poweredOn
        var radioObservers: [UInt64: AsyncStream<RadioState>.Continuation] = [:]
        var devices: [BluetoothAddress: Device] = [:]
        var deviceOrder: [BluetoothAddress] = []
        /// The next device's ``Device/order``.
        var nextDeviceOrder: UInt64 = 0
        /// Changes whenever a device is added or taken out (scans then look at the devices again).
        var deviceGeneration: UInt64 = 0
        var established: [SimulatedConnection] = []
        var pendingLinkFaults: [BluetoothAddress: [LinkFault]] = [:]
        var pendingPeerFaults: [BluetoothAddress: [PeerFault]] = [:]
        var nextObserverID: UInt64 = 0
    }

    private let state = Locked(WorldState())

    /// A world with `devices` in range and the radio powered on.
    ///
    /// Throws when a device's GATT description cannot be laid out.
    public init(
        clock: VirtualClock, devices: [VirtualPeripheral], link: LinkParameters = .typical, exchangesMTUOnConnect: Bool = true,
        watchesServiceChanged: Bool = true, security: SecurityConfiguration? = nil
    ) throws {
        self.clock = clock
        self.security = security
        self.linkParameters = link
        self.exchangesMTUOnConnect = exchangesMTUOnConnect
        self.watchesServiceChanged = watchesServiceChanged
        for description in devices {
            try add(description)
        }
    }

    /// The backend for `Central`.
    public var backend: any CentralBackend { SimulatedCentralBackend(world: self) }

    // MARK: Devices

    /// Adds a device to the world (replacing one with the same address).
    public func add(_ description: VirtualPeripheral) throws {
        let runtime = PeripheralRuntime(clock: clock, address: description.address)
        for service in description.channels {
            // A fresh runtime serves nothing yet: a repeated PSM is the description's mistake.
            try runtime.channelServices.addNow(service.service(clock: clock))
        }
        let behaviour = description.makeBehaviour(runtime)
        let database = try GATTDatabase(services: behaviour.services)
        let server = GATTServer(database: database, clock: clock, configuration: behaviour.serverConfiguration)
        runtime.attach(server)
        // When the simulation ends, the runtime stops owning the server (its handlers may hold
        // the runtime); this simulator's device record still owns it. Weak: the clock must not
        // own the runtime, whose server sleeps on the clock (a cycle a clock that no simulation
        // ends would never break).
        _ = clock.atEnd { [weak runtime] in runtime?.releaseServer() }
        let interval = max(description.advertisingInterval, .milliseconds(20))
        let seed = description.address.bytes.reduce(0) { $0 &* 31 &+ Int($1) }
        let phase = interval * Double(seed.magnitude % 1000) / 1000
        state.withLock { state in
            let order: UInt64
            if let existing = state.devices[description.address] {
                order = existing.order
            } else {
                state.deviceOrder.append(description.address)
                order = state.nextDeviceOrder
                state.nextDeviceOrder += 1
            }
            state.deviceGeneration &+= 1
            state.devices[description.address] = Device(
                description: description, runtime: runtime, server: server, behaviour: behaviour, phase: phase, order: order)
        }
    }

    /// The running state of a device (its GATT server, for scripting from tests).
    public func runtime(of address: BluetoothAddress) -> PeripheralRuntime? { state.withLock { $0.devices[address]?.runtime } }

    /// Moves a device: a new RSSI, or nil to take it out of range (its links are lost).
    public func setRSSI(_ rssi: RSSI?, of address: BluetoothAddress) async {
        let links: [SimulatedLink] = state.withLock { state in
            state.devices[address]?.description.rssi = rssi
            guard rssi == nil else { return [] }
            return state.established.filter { $0.peripheral.address == address }.map(\.link)
        }
        for link in links { await link.close(reason: .connectionTimeout) }
    }

    /// Takes a device out of the world: its links are lost and it is heard no more.
    public func remove(_ address: BluetoothAddress) async {
        await setRSSI(nil, of: address)
        state.withLock { state in
            state.devices[address] = nil
            state.deviceOrder.removeAll { $0 == address }
            state.deviceGeneration &+= 1
        }
    }

    /// Changes what a device advertises from its next advertising event on (a sensor's new
    /// reading, a new name).
    public func setAdvertisingData(_ data: AdvertisingData, of address: BluetoothAddress) {
        state.withLock { $0.devices[address]?.description.advertisingData = data }
    }

    /// Makes a device accept connections or not.
    public func setConnectable(_ connectable: Bool, of address: BluetoothAddress) {
        state.withLock { $0.devices[address]?.description.isConnectable = connectable }
    }

    // MARK: Radio

    /// The central's radio state.
    public var radioState: RadioState { state.withLock { $0.radio } }

    /// Switches the central's radio. Leaving `poweredOn` drops every link (connection lost) and
    /// ends running scans.
    public func setRadioState(_ radio: RadioState) async {
        let (observers, links): ([AsyncStream<RadioState>.Continuation], [SimulatedLink]) = state.withLock { state in
            guard state.radio != radio else { return ([], []) }
            state.radio = radio
            let links = radio == .poweredOn ? [] : state.established.map(\.link)
            return (Array(state.radioObservers.values), links)
        }
        for observer in observers { observer.yield(radio) }
        for link in links { await link.close(reason: .connectionTimeout) }
    }

    /// Scripts a radio change: `delay` of virtual time from now, the radio switches to `state`.
    /// Call it inside the simulation run (the change runs as a task of the run).
    public func setRadioState(_ state: RadioState, after delay: Duration) {
        let clock = self.clock
        clock.taskStarter.start { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.setRadioState(state)
        }
    }

    func radioStates() -> AsyncStream<RadioState> {
        let (stream, continuation) = AsyncStream<RadioState>.makeStream(bufferingPolicy: .bufferingNewest(8))
        let (id, current): (UInt64, RadioState) = state.withLock { state in
            state.nextObserverID += 1
            state.radioObservers[state.nextObserverID] = continuation
            return (state.nextObserverID, state.radio)
        }
        continuation.yield(current)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.state.withLock { $0.radioObservers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Connections

    /// Every connection open now and the last ``closedConnectionHistory`` closed ones, oldest
    /// first.
    public var connections: [SimulatedConnection] { state.withLock { $0.established } }

    /// How many closed connections the world remembers (for ``connections`` and
    /// ``connection(to:)``): a world that runs for hours, connecting again and again, keeps its
    /// memory flat (scripts/soak).
    public static let closedConnectionHistory = 64

    /// Drops the oldest closed connections past ``closedConnectionHistory``.
    static func forgetOldClosedConnections(_ established: inout [SimulatedConnection]) {
        let closed = established.indices.filter { !established[$0].link.isOpen }
        guard closed.count > closedConnectionHistory else { return }
        let forgotten = Set(closed.prefix(closed.count - closedConnectionHistory))
        established = established.indices.filter { !forgotten.contains($0) }.map { established[$0] }
    }

    /// The newest connection to `address`.
    public func connection(to address: BluetoothAddress) -> SimulatedConnection? {
        state.withLock { $0.established.last { $0.peripheral.address == address } }
    }

    /// Faults for the next connection to `address`, applied from its first PDU (the MTU
    /// exchange, discovery…).
    public func injectOnNextConnection(to address: BluetoothAddress, link: [LinkFault] = [], peer: [PeerFault] = []) {
        state.withLock { state in
            state.pendingLinkFaults[address, default: []] += link
            state.pendingPeerFaults[address, default: []] += peer
        }
    }

    /// A snapshot of the devices, in the order they were added.
    /// The devices in order with the generation they belong to; nil when the generation is still
    /// `known` (nothing was added or taken out since).
    func devices(changedSince known: UInt64?) -> (generation: UInt64, devices: [Device])? {
        state.withLock { state in
            guard state.deviceGeneration != known else { return nil }
            return (state.deviceGeneration, state.deviceOrder.compactMap { state.devices[$0] })
        }
    }

    func device(_ identifier: PeripheralIdentifier) -> Device? {
        state.withLock { state in
            if let address = identifier.address { return state.devices[address] }
            return state.devices.values.first { $0.description.identifier.rawValue == identifier.rawValue }
        }
    }

    /// The first advertising event of a device at or after `instant`.
    func nextAdvertisingEvent(of device: Device, atOrAfter instant: VirtualInstant) -> VirtualInstant {
        let interval = max(device.description.advertisingInterval, .milliseconds(20))
        let offset = instant.sinceStart - device.phase
        if offset <= .zero { return VirtualInstant(sinceStart: device.phase) }
        let events = (offset / interval).rounded(.up)
        return VirtualInstant(sinceStart: device.phase + interval * events)
    }

    /// Connects at the device's next connectable advertising event heard in range. With a
    /// `timeout` the attempt fails when none comes before it; without one it waits (a device out
    /// of range or not in the world yet is looked for again every second) until cancelled.
    func connect(to identifier: PeripheralIdentifier, timeout: Duration?) async throws -> any ConnectionBackend {
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        let failure = BluetoothError.timeout(operation: "connection to \(identifier)", after: timeout ?? .zero)
        // Wait for the device's next connectable advertising event within the deadline.
        var device: Device
        while true {
            let state = radioState
            guard state == .poweredOn else { throw BluetoothError.radioUnavailable(state) }
            guard let found = self.device(identifier) else {
                guard let deadline else {
                    try await clock.sleep(for: .seconds(1))
                    continue
                }
                try await clock.sleep(until: deadline)
                throw failure
            }
            let event = nextAdvertisingEvent(of: found, atOrAfter: clock.now)
            if let deadline, event > deadline {
                try await clock.sleep(until: deadline)
                throw failure
            }
            try await clock.sleep(until: event)
            guard let current = self.device(identifier) else { continue }
            if current.description.rssi != nil, current.description.isConnectable, radioState == .poweredOn {
                device = current
                break
            }
            // Not heard or not connectable at this event: try the next one.
            if let deadline, clock.now >= deadline { throw failure }
            try await clock.sleep(for: .microseconds(1))
        }
        return try await establish(with: device, identifier: identifier, timeout: deadline.map { clock.now.duration(to: $0) } ?? .seconds(30))
    }

    private func establish(with device: Device, identifier: PeripheralIdentifier, timeout: Duration) async throws -> GATTConnection {
        let address = device.description.address
        let link = SimulatedLink(parameters: linkParameters, clock: clock)
        let peerFaults = PeerFaultState()
        let (linkFaults, faults) = state.withLock { state -> ([LinkFault], [PeerFault]) in
            defer {
                state.pendingLinkFaults[address] = nil
                state.pendingPeerFaults[address] = nil
            }
            return (state.pendingLinkFaults[address] ?? [], state.pendingPeerFaults[address] ?? [])
        }
        for fault in linkFaults { await link.inject(fault) }
        for fault in faults { peerFaults.add(fault) }
        let centralBearer = SimulatedATTBearer(link: link, side: .central)
        let peripheralBearer = SimulatedATTBearer(link: link, side: .peripheral, faults: peerFaults)
        let serverConnection = await device.server.attach(peripheralBearer)
        // Both ends' connection-oriented channels, carried by the link with the ATT PDUs.
        let centralChannels = SimulatedChannelEndpoint(link: link, side: .central)
        let peripheralChannels = SimulatedChannelEndpoint(link: link, side: .peripheral)
        await device.runtime.channelServices.attach(peripheralChannels, server: device.server, connection: serverConnection)
        var pairable: SimulatedPairableLink?
        if case .securityManager(let deviceSecurity) = device.description.pairing, let security {
            let centralAddress = try await centralAddress(in: security.bonds)
            pairable = SimulatedPairableLink(
                device: deviceSecurity, deviceAddress: address, centralAddress: centralAddress, world: self, server: device.server,
                serverConnection: serverConnection, link: link)
        }
        if let pairable {
            await pairable.announceBond()
            clock.taskStarter.start { await pairable.serveDevice() }
        }
        if case .accept(let delay) = device.description.pairing {
            // The central's system pairs after the first refusal for lack of security.
            let (server, clock) = (device.server, clock)
            peerFaults.onFirstSecurityRefusal {
                clock.taskStarter.start {
                    do { try await clock.sleep(for: delay) } catch { return }
                    // As a phone pairs: LE Secure Connections, authenticated, 16-octet key (Level 4).
                    await server.setSecurity(
                        GATTSecurity(isEncrypted: true, isAuthenticated: true, keySize: 16, isSecureConnections: true), for: serverConnection)
                }
            }
        }
        if let script = device.behaviour.onConnection {
            let session = PeripheralSession(runtime: device.runtime, connection: serverConnection, link: link)
            clock.taskStarter.start { await script(session) }
        }
        let connection: GATTConnection
        do {
            // The central's engines of this link share one serial domain, as over HCI.
            let domain = SerialDomain()
            let linkSecurity = pairable.flatMap { [security] pairable in
                security.map {
                    BondingLinkSecurity.start(link: pairable, configuration: $0, clock: clock, taskStarter: clock.taskStarter, serialDomain: domain)
                }
            }
            // A bonded peer is encrypted with the bond before its first ATT request (BLESA).
            try await linkSecurity?.encryptBondedPeerFirst()
            connection = try await GATTConnection.open(
                bearer: centralBearer, peripheral: device.description.identifier, clock: clock, exchangeMTU: exchangesMTUOnConnect,
                watchesServiceChanged: watchesServiceChanged, timeout: max(timeout, .milliseconds(1)),
                rssiSource: { [weak self] _ async throws(BluetoothError) -> RSSI in
                    // The controller measures the level the device is heard at (``setRSSI(_:of:)``).
                    guard let rssi = self?.state.withLock({ $0.devices[address]?.description.rssi }) else {
                        throw .disconnected(.connectionLost)
                    }
                    return rssi
                },
                securityManager: linkSecurity, serialDomain: domain)
        } catch {
            pairable?.close()
            await link.close(reason: .terminated(by: .central))
            throw error
        }
        if let pairable {
            clock.taskStarter.start {
                _ = await connection.disconnection()
                pairable.close()
            }
        }
        connection.setChannelOpener { psm, options, timeout throws(BluetoothError) in
            try await centralChannels.open(
                spsm: psm.rawValue, mode: SimulatedChannel.mode(options.mode), limits: SimulatedChannel.limits(options), timeout: timeout)
        }
        // The device's end lives as long as the link (the central's is held by its opener).
        clock.taskStarter.start {
            _ = await connection.disconnection()
            withExtendedLifetime(peripheralChannels) {}
        }
        let record = SimulatedConnection(
            peripheral: device.description.identifier, link: link, connection: connection, serverConnection: serverConnection,
            server: device.server, peerFaults: peerFaults)
        state.withLock { state in
            state.established.append(record)
            Self.forgetOldClosedConnections(&state.established)
        }
        return connection
    }
}

extension Simulator {
    /// Makes `device` lose the keys it keeps for the central, as a device reset to factory
    /// settings does: the central's next encryption with its bond fails with PIN or Key Missing.
    public func forgetBonds(of device: BluetoothAddress) {
        deviceBonds.withLock { $0.forget(device) }
    }

    /// How many Pairing Requests `device` has served (with Harald's Security Manager on both sides).
    public func pairingsServed(by device: BluetoothAddress) -> Int {
        deviceBonds.withLock { $0.pairingsServed[device] ?? 0 }
    }

    /// The central's identity address from `bonds`, made and saved the first time.
    fileprivate func centralAddress(in bonds: any BondStore) async throws -> BluetoothAddress {
        if let known = centralAddress.withLock({ $0 }) { return known }
        let identity: LocalIdentity
        if let stored = try await bonds.localIdentity() {
            identity = stored
        } else {
            identity = try LocalIdentity.generate()
            try await bonds.setLocalIdentity(identity)
        }
        centralAddress.withLock { $0 = identity.address }
        return identity.address
    }
}

/// The `CentralBackend` of a ``Simulator``.
struct SimulatedCentralBackend: CentralBackend {
    let world: Simulator

    func radioStates() -> AsyncStream<RadioState> { world.radioStates() }

    /// The simulation's: attempts and watchers the public API starts stay in virtual time.
    var taskStarter: TaskStarter { world.clock.taskStarter }

    func scan(_ request: ScanRequest) -> ScanReports {
        let cursor = ScanCursor(world: world, request: request)
        return ScanReports(unfolding: { try await cursor.next() })
    }

    /// Connects as the world's central. A connection made with `enableAutoReconnect` is made
    /// again by the "system" when the link or the peer ends it, as iOS 17 does (see
    /// ``ConnectionOptions/enableAutoReconnect``); a connect while that runs joins it.
    func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        let world = self.world
        if let reconnecting = world.reconnections.inFlight(to: peripheral) {
            let outcome: SystemReconnections.Outcome?
            if let timeout {
                outcome = await Self.outcome(of: reconnecting, within: timeout, clock: world.clock)
                guard outcome != nil else { throw .timeout(operation: "connect to \(peripheral)", after: timeout) }
            } else {
                outcome = await reconnecting.wait()
            }
            if Task.isCancelled { throw .cancelled }
            if case .connected(let joined) = outcome { return joined }
        }
        let connection = try await withBluetoothErrors { try await world.connect(to: peripheral, timeout: timeout) }
        return options.enableAutoReconnect ? AutoReconnectingConnection(inner: connection, world: world) : connection
    }

    /// How the system's attempt ended, or nil when `timeout` passes first (or the task is cancelled).
    private static func outcome(
        of attempt: Latch<SystemReconnections.Outcome>, within timeout: Duration, clock: VirtualClock
    ) async -> SystemReconnections.Outcome? {
        await withTaskGroup(of: SystemReconnections.Outcome?.self) { group in
            group.addTask { await attempt.wait() }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Stops the system's automatic reconnection of `peripheral`, if one runs.
    func cancelSystemConnection(to peripheral: PeripheralIdentifier) async {
        world.reconnections.cancel(peripheral)
    }

    func bonds() async throws(BluetoothError) -> [Bond] {
        guard let store = world.security?.bonds else { throw .unsupported("bonds: this simulator runs no Security Manager") }
        do { return try await store.allBonds() } catch { throw .backend("the bond store: \(error)") }
    }

    func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond? {
        guard let store = world.security?.bonds else { throw .unsupported("bonds: this simulator runs no Security Manager") }
        guard let address = peripheral.address else { throw .notFound("\(peripheral) has no device address") }
        do {
            guard let bond = try await store.bond(resolving: address) else { return nil }
            return try await store.removeBond(for: bond.identityAddress)
        } catch { throw .backend("the bond store: \(error)") }
    }
}
