import Harald
import HaraldCodec

/// The device at the other end of a scenario, as a scenario steers it. Each backend provides one:
/// a virtual peripheral on the simulator, the CoreBluetooth fake's peripheral, a Bumble GATT
/// server behind a control socket.
public protocol ScenarioPeer: Sendable {
    /// Whom to connect to (what a scan reports for the peer).
    var identifier: PeripheralIdentifier { get }
    /// Keep requests unanswered until ``resumeAnswering()``.
    func holdAnswers() async throws
    /// Answer the held requests, in order, and every later one at once.
    func resumeAnswering() async throws
    /// Returns once at least `count` requests are held.
    func waitForHeldRequests(_ count: Int) async throws
    /// Notifies `value` on characteristic `uuid` (delivered only if the central subscribed).
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async throws
    /// The peer's current value of `uuid`.
    func value(of uuid: BluetoothUUID) async throws -> [UInt8]
    /// Values written without response to `uuid`, in arrival order, once at least `count` arrived.
    func writesWithoutResponse(to uuid: BluetoothUUID, count: Int) async throws -> [[UInt8]]
    /// The peer closes the link.
    func disconnectFromPeer() async throws
    /// Whether the central has notifications (or indications) on for characteristic `uuid`
    /// now, as the peer's CCCD says.
    func notificationsEnabled(on uuid: BluetoothUUID) async throws -> Bool
}

/// A central on the backend under test, the peer it talks to, and how time passes there.
public struct ScenarioHarness: Sendable {
    /// The public API's central, over the backend under test.
    public let central: Central
    public let peer: any ScenarioPeer
    /// Timeout for operations that are expected to succeed (generous on real links).
    public let timeout: Duration
    /// Timeout given to an operation that is expected to time out.
    public let shortTimeout: Duration
    /// Lets a pending operation's `shortTimeout` pass: advances a manual virtual clock once the
    /// timer sleeps; nothing where time passes by itself (real time, or a simulation).
    public let elapse: @Sendable (Duration) async -> Void
    /// Operations the backend still waits on for the peer's newest connection (0 when nothing
    /// leaked), or nil when the backend cannot tell.
    public let pendingOperations: @Sendable () async -> Int?

    public init(
        central: Central, peer: any ScenarioPeer, timeout: Duration, shortTimeout: Duration,
        elapse: @escaping @Sendable (Duration) async -> Void = { _ in },
        pendingOperations: @escaping @Sendable () async -> Int? = { nil }
    ) {
        self.central = central
        self.peer = peer
        self.timeout = timeout
        self.shortTimeout = shortTimeout
        self.elapse = elapse
        self.pendingOperations = pendingOperations
    }
}

/// A scenario's expectation that did not hold.
public struct ScenarioFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
