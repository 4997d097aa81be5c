import Harald
import HaraldCore
import HaraldGATTLink

/// A central backend that hands everything to `inner` and keeps the newest connection it opened
/// that runs Harald's GATT client (the HCI backend's and the simulator's), so a test or the soak
/// can look at that client after the public API's connection has ended: what it still holds.
public final class ConnectionRecorder<Inner: CentralBackend>: CentralBackend {
    public let inner: Inner
    private let latest = Locked<GATTConnection?>(nil)

    public init(_ inner: Inner) { self.inner = inner }

    /// The newest connection opened through this backend, if it runs Harald's GATT client.
    public var connection: GATTConnection? { latest.value }

    /// Continuations the newest connection's GATT client still holds (0 before any connection).
    public func pendingOperations() async -> Int {
        guard let connection = latest.value else { return 0 }
        return await connection.client.liveContinuations
    }

    public func radioStates() -> AsyncStream<RadioState> { inner.radioStates() }
    public func scan(_ request: ScanRequest) -> ScanReports { inner.scan(request) }
    public func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        let connection = try await inner.connect(to: peripheral, options: options, timeout: timeout)
        latest.withLock { $0 = connection as? GATTConnection }
        return connection
    }
    public func restorations() -> AsyncStream<BackendRestoration> { inner.restorations() }
    public var taskStarter: TaskStarter { inner.taskStarter }
    public func bonds() async throws(BluetoothError) -> [Bond] { try await inner.bonds() }
    public func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond? {
        try await inner.removeBond(for: peripheral)
    }
}
