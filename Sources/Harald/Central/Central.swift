import HaraldCodec
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
/// A `Central` is a value holding its backend and settings; copies share the backend.
public struct Central: Sendable {
    /// The backend doing the work.
    public let backend: any CentralBackend
    /// The clock timeouts are measured on (a virtual clock in simulations).
    public let clock: any Clock<Duration>
    /// Timeout for operations that are not given one.
    public let defaultTimeout: Duration
    /// Where the central logs (label `harald.central`; connections use `harald.connection`).
    public let logger: Logger

    public init(
        backend: any CentralBackend, clock: any Clock<Duration> = ContinuousClock(), defaultTimeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "harald.central")
    ) {
        self.backend = backend
        self.clock = clock
        self.defaultTimeout = defaultTimeout
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
    /// for `unsupported` and `unauthorized` (they do not change by waiting), and a timeout error
    /// if the radio stays off.
    public func waitUntilPoweredOn(timeout: Duration? = nil) async throws(BluetoothError) {
        try await withBluetoothErrors {
            let backend = self.backend
            try await withTimeout(timeout ?? defaultTimeout, clock: clock, operation: "waiting for the radio") {
                for await state in backend.radioStates() {
                    switch state {
                    case .poweredOn: return
                    case .unsupported, .unauthorized: throw BluetoothError.radioUnavailable(state)
                    default: continue
                    }
                }
                throw CancellationError()
            }
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

    /// Connects to the device that sent `advertisement`.
    ///
    /// `services` declares what the app will use, so discovery asks only for that.
    public func connect(to advertisement: Advertisement, services: [ServiceSpec] = [], timeout: Duration? = nil) async throws(BluetoothError)
        -> PeripheralConnection
    {
        try await withBluetoothErrors {
            try await connect(to: advertisement.peripheral, services: services, timeout: timeout)
        }
    }

    /// Connects to a peripheral by identifier (from an earlier scan, or a known address).
    public func connect(to peripheral: PeripheralIdentifier, services: [ServiceSpec] = [], timeout: Duration? = nil) async throws(BluetoothError)
        -> PeripheralConnection
    {
        try await withBluetoothErrors {
            logger.debug("connecting", metadata: ["peripheral": "\(peripheral)"])
            let link: any ConnectionBackend
            do {
                link = try await backend.connect(to: peripheral, options: .default, timeout: timeout ?? defaultTimeout)
            } catch {
                logger.debug("connection failed", metadata: ["peripheral": "\(peripheral)", "error": "\(error)"])
                throw error
            }
            logger.debug("connected", metadata: ["peripheral": "\(peripheral)"])
            var connectionLogger = Logger(label: "harald.connection")
            connectionLogger.logLevel = logger.logLevel
            connectionLogger[metadataKey: "peripheral"] = "\(peripheral)"
            return PeripheralConnection(backend: link, services: services, clock: clock, defaultTimeout: defaultTimeout, logger: connectionLogger)
        }
    }
}
