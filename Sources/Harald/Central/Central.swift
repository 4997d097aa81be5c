import HaraldCodec
import HaraldCore
import Logging

/// The app's side of Bluetooth LE: the radio state, scanning and connecting.
///
/// One `Central` runs on one backend — the simulator, Harald's HCI host stack, or CoreBluetooth —
/// and the code using it is the same on all of them. It can hold several connections at once.
///
/// ```swift
/// let central = Central(backend: world.backend)
/// let strap = try await central.scan(for: .heartRate).first(timeout: .seconds(10))
/// let connection = try await central.connect(to: strap, timeout: .seconds(10))
/// ```
///
/// A `Central` is a value holding its backend and settings; copies share the backend and the
/// record of the app's links (one per peripheral, with who wants which notifications). Make one
/// per backend per app, at launch, and pass copies down: two centrals made on one backend keep
/// a record each, so neither sees the other's links.
public struct Central: Sendable {
    /// The backend doing the work.
    public let backend: any CentralBackend
    /// The clock timeouts are measured on (a virtual clock in simulations).
    public let clock: any Clock<Duration>
    /// Timeout for the calls that wait on a device's answer (GATT operations, RSSI, pairing)
    /// when they are given none. Calls that wait on the world (``waitUntilPoweredOn(timeout:)``,
    /// `connect(to:services:options:timeout:)`) wait without limit instead.
    public let defaultTimeout: Duration
    /// Deadline of the CCCD write that turns notifications off when a subscription's last loop
    /// ends (that clean-up runs on its own, after the loop, so it cannot use the loop's timeout).
    public let cleanUpTimeout: Duration
    /// Where the central logs (label `harald.central`; connections use `harald.connection`).
    public let logger: Logger
    /// The live links, one per peripheral, shared by every copy of this central.
    let registry = ConnectionRegistry()

    /// A central on `backend`. Calls that wait on a device's answer and have no timeout of their
    /// own get `defaultTimeout` (power-on waits and connects wait without limit); turning notifications off after a loop ends gets `cleanUpTimeout`; both are measured on `clock`.
    public init(
        backend: any CentralBackend, clock: any Clock<Duration> = ContinuousClock(), defaultTimeout: Duration = .seconds(30),
        cleanUpTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "harald.central")
    ) {
        self.backend = backend
        self.clock = clock
        self.defaultTimeout = defaultTimeout
        self.cleanUpTimeout = cleanUpTimeout
        self.logger = logger
    }

    /// The radio state now, then each change.
    public func radioStates() -> AsyncStream<RadioState> { backend.radioStates() }

    /// The current radio state.
    public func state() async -> RadioState {
        var iterator = backend.radioStates().makeAsyncIterator()
        return await iterator.next() ?? .unknown
    }

    /// Waits until the radio is powered on. Throws ``BluetoothError/radioUnavailable(_:)`` at once
    /// for `unsupported` and `unauthorized` (they do not change by waiting). With a `timeout`, a
    /// radio still off when it passes gives ``BluetoothError/timeout(operation:after:)``; with
    /// none, the call waits for the radio (the person turning Bluetooth on) without limit, until
    /// it is on or the calling task is cancelled.
    public func waitUntilPoweredOn(timeout: Duration? = nil) async throws(BluetoothError) {
        try await waitUntilPoweredOn(deadline: timeout.map { CallDeadline(timeout: $0, clock: clock) })
    }

    /// Waits for power-on until `deadline`, or without limit when it is nil.
    private func waitUntilPoweredOn(deadline: CallDeadline?) async throws(BluetoothError) {
        let backend = self.backend
        let wait: @Sendable () async throws -> Void = {
            for await state in backend.radioStates() {
                switch state {
                case .poweredOn: return
                case .unsupported, .unauthorized: throw BluetoothError.radioUnavailable(state)
                default: continue
                }
            }
            throw CancellationError()
        }
        guard let deadline else {
            try await withBluetoothErrors { try await wait() }
            return
        }
        let remaining = try deadline.remaining("waiting for the radio")
        try await withBluetoothErrors {
            try await withTimeout(remaining, clock: clock, operation: "waiting for the radio") { try await wait() }
        }
    }

    /// Scans for advertisements matching `request`.
    public func scan(_ request: ScanRequest = ScanRequest()) -> AdvertisementScan {
        AdvertisementScan(backend: backend, request: request, clock: clock)
    }

    /// Scans for devices advertising `service`.
    public func scan(for service: ServiceSpec) -> AdvertisementScan {
        scan(ScanRequest(services: [service.uuid]))
    }

    /// Connects to the device that sent `advertisement` (see
    /// `connect(to:services:options:timeout:)`).
    public func connect(
        to advertisement: Advertisement, services: [ServiceSpec] = [], options: ConnectionOptions = .default, timeout: Duration? = nil
    ) async throws(BluetoothError) -> PeripheralConnection {
        try await connect(to: advertisement.peripheral, services: services, options: options, timeout: timeout)
    }

    /// Connects to a peripheral by identifier (from an earlier scan, or a known address), and
    /// returns a handle on the link.
    ///
    /// The central keeps one link per peripheral: while one is up (or being made), connecting
    /// again returns another handle on it; see ``PeripheralConnection`` for how handles share it.
    /// `services` declares what the app will use, so discovery asks only for that.
    ///
    /// With a `timeout`, the connect (waiting for the radio to power on included) fails with
    /// ``BluetoothError/timeout(operation:after:)`` when the link is not up in time, and the
    /// attempt is cancelled. With no `timeout` it is a *pending connect*, as CoreBluetooth's: it
    /// waits — for power-on, for the device to come into range — until it succeeds or the calling
    /// task is cancelled. An unsupported or unauthorized radio fails at once either way.
    public func connect(
        to peripheral: PeripheralIdentifier, services: [ServiceSpec] = [], options: ConnectionOptions = .default, timeout: Duration? = nil
    ) async throws(BluetoothError) -> PeripheralConnection {
        let deadline = timeout.map { CallDeadline(timeout: $0, clock: clock) }
        logger.debug("connecting", metadata: ["peripheral": "\(peripheral)"])
        let backend = self.backend
        let link: SharedLink
        do {
            try await waitUntilPoweredOn(deadline: deadline)
            link = try await registry.link(
                to: peripheral, deadline: deadline, starter: backend.taskStarter, settings: linkSettings
            ) { () async throws(BluetoothError) -> any ConnectionBackend in
                try await backend.connect(to: peripheral, options: options, timeout: nil)
            }
        } catch {
            logger.debug("connection failed", metadata: ["peripheral": "\(peripheral)", "error": "\(error)"])
            throw deadline?.rescope(error) ?? error
        }
        logger.debug("connected", metadata: ["peripheral": "\(peripheral)", "owners": "\(link.ownerCount)"])
        return PeripheralConnection(link: link, services: services, defaultTimeout: defaultTimeout, logger: connectionLogger(peripheral))
    }

    /// The state of this central's link to `peripheral` now — disconnected, connecting, connected
    /// — then every change, whoever connects or disconnects (a kit, a screen, the peer).
    public func linkStates(of peripheral: PeripheralIdentifier) -> AsyncStream<PeripheralLinkState> {
        registry.states(of: peripheral)
    }

    /// The state of this central's link to `peripheral` now (what ``linkStates(of:)`` starts with).
    package func linkStateNow(of peripheral: PeripheralIdentifier) -> PeripheralLinkState {
        registry.state(of: peripheral)
    }

    /// Disconnects the link to `peripheral` for every handle on it (a connection a kit holds
    /// too). Their calls fail with ``BluetoothError/disconnected(_:)`` (`.localRequest`). Also
    /// stops a connection the system is making by itself — an automatic reconnection
    /// (``PeripheralLinkState/reconnecting``), a pending connect handed back by state
    /// restoration — unless a `connect` of the app waits for it (cancel that task instead).
    public func disconnectAll(from peripheral: PeripheralIdentifier) async {
        await registry.currentLink(to: peripheral)?.close()
        await backend.cancelSystemConnection(to: peripheral)
    }

    /// The peers this device is bonded with (identity address, keys present, security level;
    /// never key material). Throws ``BluetoothError/unsupported(_:)`` on CoreBluetooth, where the
    /// system keeps bonds out of apps' reach.
    public func bonds() async throws(BluetoothError) -> [Bond] { try await backend.bonds() }

    /// Deletes the bond with `peripheral` and returns it (nil when there was none): the next
    /// connection that needs security pairs again. A link that is up keeps its encryption until
    /// it closes. Throws ``BluetoothError/unsupported(_:)`` on CoreBluetooth (the person removes
    /// the device in Settings).
    @discardableResult
    public func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond? {
        try await backend.removeBond(for: peripheral)
    }

    /// The connections the system restored when it relaunched the app (CoreBluetooth state
    /// restoration), as they arrive; a consumer that starts late still gets them. Each restored
    /// connection is a handle owned by the app, with the services the system had discovered.
    /// Characteristics the system left notifying are owned by that handle: a subscription to one
    /// takes it over (its values held since the relaunch come first), and those nobody
    /// subscribes to are turned off when the handle disconnects or is released. The connects the
    /// system was still making are listed too: ``connect(to:services:options:timeout:)-(PeripheralIdentifier,_,_,_)`` without
    /// a timeout waits for one, ``disconnectAll(from:)`` stops it. Backends without restoration
    /// end the stream at once.
    ///
    /// On CoreBluetooth, make the central (with a restore identifier) while the app launches —
    /// in `application(_:didFinishLaunchingWithOptions:)` — and call this there: a relaunched app
    /// may show no window, so a view's `.task` may never run.
    public func restorations() -> AsyncStream<Restoration> {
        let (registry, settings, defaultTimeout) = (self.registry, linkSettings, self.defaultTimeout)
        let loggerFor: @Sendable (PeripheralIdentifier) -> Logger = { [self] peripheral in connectionLogger(peripheral) }
        let restored = backend.restorations()
        return AsyncStream { continuation in
            let task = backend.taskStarter.start {
                for await restoration in restored {
                    var connections: [PeripheralConnection] = []
                    for backend in restoration.connections {
                        let link = registry.adopt(backend, settings: settings)
                        guard link.addOwner() else { continue }
                        let connection = PeripheralConnection(
                            link: link, services: [], defaultTimeout: defaultTimeout, logger: loggerFor(backend.peripheral))
                        await connection.adoptRestoredNotifications(restoration.notifying[backend.peripheral] ?? [])
                        connections.append(connection)
                    }
                    continuation.yield(
                        Restoration(
                            connections: connections, pendingConnects: restoration.pendingConnections, scanServices: restoration.scanServices))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private var linkSettings: ConnectionRegistry.LinkSettings {
        var linkLogger = Logger(label: "harald.connection")
        linkLogger.logLevel = logger.logLevel
        return ConnectionRegistry.LinkSettings(clock: clock, logger: linkLogger, cleanUpTimeout: cleanUpTimeout)
    }

    private func connectionLogger(_ peripheral: PeripheralIdentifier) -> Logger {
        var connectionLogger = Logger(label: "harald.connection")
        connectionLogger.logLevel = logger.logLevel
        connectionLogger[metadataKey: "peripheral"] = "\(peripheral)"
        return connectionLogger
    }
}

/// What the system restored when it relaunched the app for Bluetooth (``Central/restorations()``).
public struct Restoration: Sendable {
    /// The connections it kept for the app, each a handle the app now owns.
    public var connections: [PeripheralConnection]
    /// The peripherals the system is still connecting for the app (pending connects it kept
    /// across the relaunch): ``Central/connect(to:services:options:timeout:)-(PeripheralIdentifier,_,_,_)`` without a
    /// timeout returns the connection when the system makes it; ``Central/disconnectAll(from:)``
    /// stops it.
    public var pendingConnects: [PeripheralIdentifier]
    /// The services of the scan that was running, if one was; scan again with them to resume.
    public var scanServices: [BluetoothUUID]?
}
