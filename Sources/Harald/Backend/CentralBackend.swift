import HaraldCodec
import HaraldCore

/// What the public API needs from a Bluetooth stack in the central role.
///
/// Implemented by the simulator (over Harald's ATT engine), by the HCI host stack (over the same
/// engine) and by CoreBluetooth. ``Central`` and ``PeripheralConnection`` sit on top and never know
/// which backend runs. Every method may be called from any task; implementations are thread-safe.
public protocol CentralBackend: Sendable {
    /// The radio state now, then every change, until the consumer stops iterating.
    func radioStates() -> AsyncStream<RadioState>

    /// Advertisements matching `request` (backends may filter less; the caller filters again)
    /// until the consumer stops iterating, which stops the scan. Throws
    /// ``BluetoothError/radioUnavailable(_:)`` if the radio cannot scan. Push-fed backends
    /// buffer at most ``ScanRequest/bufferLimit`` reports (``ScanReports/makeStream(bufferLimit:)``).
    func scan(_ request: ScanRequest) -> ScanReports

    /// Connects to `peripheral`. Throws ``BluetoothError/timeout(operation:after:)`` when the
    /// connection is not up within `timeout` (the attempt is then cancelled); with `timeout` nil
    /// the attempt stays pending until it succeeds or the calling task is cancelled (how
    /// CoreBluetooth connects: the system completes it when the device comes back in range).
    /// Cancelling the task cancels the attempt.
    func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend

    /// The connections the system restored when it relaunched the app, delivered once and kept
    /// for a consumer that arrives later. The default never restores anything (the stream ends).
    func restorations() -> AsyncStream<BackendRestoration>

    /// Stops a connection the system is making for the app by itself — an automatic
    /// reconnection after a link loss, a pending connect handed back by state restoration —
    /// when no `connect` of the app waits for it. The default does nothing (only CoreBluetooth
    /// makes such connections).
    func cancelSystemConnection(to peripheral: PeripheralIdentifier) async

    /// Where the public API starts the tasks that work for this backend (connection attempts
    /// shared by several callers, link watchers): the simulator's executor in a simulation, so
    /// they run in virtual time. The default starts plain `Task { }`s.
    var taskStarter: TaskStarter { get }

    /// The peers this device is bonded with. The default throws `BluetoothError/unsupported(_:)`
    /// (CoreBluetooth keeps bonds in the system, out of apps' reach).
    func bonds() async throws(BluetoothError) -> [Bond]

    /// Deletes the bond with `peripheral` (found by identity address, last address or IRK), if
    /// there is one; returns it. Connected links keep their encryption until they close. The
    /// default throws `BluetoothError/unsupported(_:)` (on Apple devices the person removes a
    /// bond in Settings).
    @discardableResult
    func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond?
}

extension CentralBackend {
    public func bonds() async throws(BluetoothError) -> [Bond] {
        throw .unsupported("listing bonds on this backend")
    }

    @discardableResult
    public func removeBond(for peripheral: PeripheralIdentifier) async throws(BluetoothError) -> Bond? {
        throw .unsupported("removing bonds on this backend")
    }

    /// Connects with the default `ConnectionOptions`.
    public func connect(to peripheral: PeripheralIdentifier, timeout: Duration?) async throws(BluetoothError) -> any ConnectionBackend {
        try await connect(to: peripheral, options: .default, timeout: timeout)
    }

    public func restorations() -> AsyncStream<BackendRestoration> { AsyncStream { $0.finish() } }

    public func cancelSystemConnection(to peripheral: PeripheralIdentifier) async {}

    public var taskStarter: TaskStarter { .default }
}

/// One connection to a peripheral, seen from the central.
///
/// Operations address services, characteristics and descriptors by their ``AttributeID`` (the
/// `id` of ``DiscoveredService``, ``DiscoveredCharacteristic`` and ``DiscoveredDescriptor``),
/// which is valid only on the connection that discovered them; an operation on an identity the
/// connection does not know fails with ``BluetoothError/notFound(_:)`` (``valueUpdates(for:buffering:)``
/// returns a stream that has finished).
///
/// Operations fail with ``BluetoothError``: `.disconnected` once the link is gone, `.attribute`
/// for ATT error responses, `.timeout` when `timeout` passes (for ATT backends a timed-out
/// transaction closes the link, as the Core spec requires).
public protocol ConnectionBackend: Sendable {
    /// The peripheral at the other end.
    var peripheral: PeripheralIdentifier { get }

    /// The ATT_MTU in effect (23 until an MTU exchange raised it).
    nonisolated(nonsending) func mtu() async -> Int

    /// Primary services, all of them (`uuids == nil`) or only those listed.
    nonisolated(nonsending) func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws(BluetoothError) -> [DiscoveredService]

    /// Characteristics of `service`: all of them (`uuids == nil`), or at least those listed.
    /// CoreBluetooth discovers only the listed ones; ATT backends return every characteristic,
    /// since their discovery procedure finds them all anyway.
    nonisolated(nonsending) func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration)
        async throws(BluetoothError)
        -> [DiscoveredCharacteristic]

    /// Descriptors of `characteristic`.
    nonisolated(nonsending) func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError)
        -> [DiscoveredDescriptor]

    /// All characteristics of each service, one list per service in the given order. The
    /// default asks per service; ATT backends sweep all services at once.
    nonisolated(nonsending) func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration) async throws(BluetoothError)
        -> [[DiscoveredCharacteristic]]

    /// Descriptors of each characteristic, one list per characteristic in the given order. The
    /// default asks per characteristic; ATT backends sweep them all at once.
    nonisolated(nonsending) func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError)
        -> [[DiscoveredDescriptor]]

    /// The whole values of many characteristics, one result per characteristic in the given
    /// order: the value, or the `BluetoothError/attribute(_:on:)` error the peripheral
    /// gave for it; failures of the connection are thrown. The default reads one at a time;
    /// ATT backends batch with Read Multiple Variable.
    nonisolated(nonsending) func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError) -> [Result<
        [UInt8], BluetoothError
    >]

    /// Reads the whole value (long values included).
    nonisolated(nonsending) func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [UInt8]

    /// Writes a value. `.withoutResponse` waits for the backend's readiness instead of dropping.
    nonisolated(nonsending) func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration)
        async throws(BluetoothError)

    /// Reads a descriptor's value.
    nonisolated(nonsending) func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) -> [UInt8]

    /// Writes a descriptor's value.
    nonisolated(nonsending) func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError)

    /// Turns notifications or indications on (through the CCCD) or off. When `enabled`, values
    /// start flowing into `valueUpdates(for:)`.
    nonisolated(nonsending) func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError)

    /// Values the peripheral notifies or indicates for `characteristic` — never read responses —
    /// from now until the connection ends (then the stream finishes). Each call returns a new
    /// stream; values are copied to every live stream, each buffered by its own policy.
    nonisolated(nonsending) func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates

    /// Largest value one write of `kind` carries without a long write (MTU − 3 for ATT).
    nonisolated(nonsending) func maximumWriteLength(for kind: WriteKind) async -> Int

    /// Waits until the connection ends and returns why. Returns at once if it already ended.
    nonisolated(nonsending) func disconnection() async -> DisconnectReason

    /// Closes the connection; pending operations fail with `.disconnected(.localRequest)`. The
    /// system does not reconnect a connection the app closed. Once the connection has ended this
    /// does nothing: a reconnection the system is making of it carries on (stop that with
    /// `CentralBackend/cancelSystemConnection(to:)`).
    nonisolated(nonsending) func disconnect() async

    /// Once the connection ended: whether the system is making it again by itself
    /// (CoreBluetooth's automatic reconnection, iOS 17 and macOS 14, for a connection made with
    /// `ConnectionOptions.enableAutoReconnect`), or has made it again. The default is false.
    var isReconnectingBySystem: Bool { get }

    /// Once the connection ended and ``isReconnectingBySystem``: the new connection, when the
    /// system has brought it up; nil at once when nothing reconnects it, or when the
    /// reconnection stops (cancelled, the radio went off) or the waiting task is cancelled. The
    /// default returns nil.
    nonisolated(nonsending) func systemReconnection() async -> (any ConnectionBackend)?

    /// Changes to the peripheral's GATT database from now on (Service Changed), one stream per
    /// call, finishing when the connection ends. Before yielding a change the backend has ended
    /// the value streams of the characteristics inside it with ``BluetoothError/serviceChanged(_:)``
    /// and forgotten their identities. The default reports nothing (the stream ends at once).
    func serviceChanges() -> AsyncStream<ServiceChange>

    /// Reads the received signal strength of the link now. The default throws
    /// ``BluetoothError/unsupported(_:)``.
    nonisolated(nonsending) func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI

    /// How the link is secured now; nil when the backend cannot tell (CoreBluetooth pairs and
    /// encrypts on its own and does not say). The default is nil.
    nonisolated(nonsending) func security() async -> LinkSecurity?

    /// Secures the link now: encrypts with the bond's key when there is one, else pairs. The
    /// default throws `BluetoothError/unsupported(_:)` (on CoreBluetooth the system pairs when
    /// the peripheral first refuses a request for lack of security).
    nonisolated(nonsending) func secure(timeout: Duration) async throws(BluetoothError) -> LinkSecurity

    /// Pairs now, even when the peer is bonded or the link is encrypted already; the new keys
    /// replace the bond's. The default throws `BluetoothError/unsupported(_:)` (CoreBluetooth
    /// offers no way to start pairing).
    nonisolated(nonsending) func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity

    /// The ATT traffic of the connection so far, or nil when the backend cannot see it (the
    /// default; see ``ProtocolCost``).
    nonisolated(nonsending) func protocolCost() async -> ProtocolCost?

    /// Where code working on this connection starts its background tasks (a kit's notification
    /// readers, say): the simulator's connections name the simulation's executor, so such tasks
    /// stay in virtual time; the default starts plain `Task { }`s.
    var taskStarter: TaskStarter { get }

    /// The services this backend can never reach, each with why: the system it runs on keeps them
    /// to itself (CoreBluetooth: Generic Access, 0x1800, and Generic Attribute, 0x1801). A typed
    /// call that needs one of them, or one of its characteristics, fails with
    /// `BluetoothError.unsupported` before anything is sent. The default is empty.
    var hiddenServices: [BluetoothUUID: String] { get }

    /// The actor whose executor the link's engines run on (its serial domain: the HCI host's
    /// transport thread over HCI), which the link's shared state and every handle to it take as
    /// well; nil (the default) when the backend has none, and the link then gets one of its own.
    var serialDomain: (any Actor)? { get }

    /// Opens a connection-oriented L2CAP channel to the peripheral on `psm`, within `timeout`.
    /// Refused opens throw ``BluetoothError/channelRefused(_:)``; backends that run their own
    /// Security Manager pair or encrypt and try once more when the refusal asks for it. The
    /// default throws ``BluetoothError/unsupported(_:)``.
    nonisolated(nonsending) func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration) async throws(BluetoothError)
        -> any L2CAPChannelBackend
}

extension ConnectionBackend {
    nonisolated(nonsending) public func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration) async throws(BluetoothError)
        -> any L2CAPChannelBackend
    {
        throw .unsupported("L2CAP channels on this backend")
    }

    public var taskStarter: TaskStarter { .default }

    public var serialDomain: (any Actor)? { nil }

    public var hiddenServices: [BluetoothUUID: String] { [:] }

    public func serviceChanges() -> AsyncStream<ServiceChange> { AsyncStream { $0.finish() } }

    public var isReconnectingBySystem: Bool { false }

    nonisolated(nonsending) public func systemReconnection() async -> (any ConnectionBackend)? { nil }

    nonisolated(nonsending) public func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI {
        throw .unsupported("reading the RSSI of a connection on this backend")
    }

    nonisolated(nonsending) public func security() async -> LinkSecurity? { nil }

    nonisolated(nonsending) public func secure(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        throw .unsupported("securing a link on demand on this backend")
    }

    nonisolated(nonsending) public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        throw .unsupported("starting pairing on this backend")
    }
}
