import HaraldCodec
import HaraldCore

/// What happens on a served device's links, as its backend reports it.
public enum PeripheralEvent: Hashable, Sendable, CustomStringConvertible {
    /// A central connected.
    case connected(CentralIdentifier)
    /// A central disconnected.
    case disconnected(CentralIdentifier)
    /// The central turned notifications or indications of a characteristic on or off.
    case subscriptionChanged(CentralIdentifier, characteristic: BluetoothUUID, notifying: Bool)
    /// The central wrote a characteristic's value (after the write handler accepted it).
    case wrote(CentralIdentifier, characteristic: BluetoothUUID)
    /// The central read a characteristic's value (once per read, however many Read Blobs a long
    /// value took).
    case read(CentralIdentifier, characteristic: BluetoothUUID)
    /// The central's link is encrypted now, at this level (after a pairing, or with a bond's key).
    case secured(CentralIdentifier, SecurityLevel)
    /// A pairing with the central finished; `bonded` when its keys were kept for next time.
    case paired(CentralIdentifier, bonded: Bool)
    /// A pairing with the central failed, for this reason.
    case pairingFailed(CentralIdentifier, reason: String)

    /// The event in words, naming the central, e.g. `C0:00:00:00:00:01/random subscribed to 2A37`.
    public var description: String {
        switch self {
        case let .connected(central): "\(central) connected"
        case let .disconnected(central): "\(central) disconnected"
        case let .subscriptionChanged(central, uuid, on): "\(central) \(on ? "subscribed to" : "unsubscribed from") \(uuid)"
        case let .wrote(central, uuid): "\(central) wrote \(uuid)"
        case let .read(central, uuid): "\(central) read \(uuid)"
        case let .secured(central, level): "\(central) secured: \(level)"
        case let .paired(central, bonded): "\(central) paired\(bonded ? " and bonded" : " (no bond kept)")"
        case let .pairingFailed(central, reason): "pairing with \(central) failed: \(reason)"
        }
    }
}

/// What the public API needs from a Bluetooth stack in the peripheral role: serve a
/// ``PeripheralDefinition`` and advertise it. Implemented over Harald's HCI host, in the
/// simulator, and over CoreBluetooth's peripheral manager.
public protocol PeripheralBackend: Sendable {
    /// Builds the GATT database, starts advertising and serves centrals until the returned
    /// device is stopped. A backend serves one definition at a time (a controller has one GATT
    /// database); a second call while one is served throws `BluetoothError/misuse(_:)`.
    func serve(_ definition: PeripheralDefinition) async throws(BluetoothError) -> any ServingBackend
}

/// One served definition, seen from the backend.
public protocol ServingBackend: Sendable {
    /// Notifies `value` of the characteristic `uuid` in `service` to every subscribed central
    /// whose link meets the characteristic's read security, or only to `central`; returns how
    /// many got it. A notification carries at most ATT_MTU − 3 bytes of a value and a value is
    /// never cut: sent to every subscriber, it goes whole to each central whose link carries it;
    /// sent to `central` whose link cannot carry it, it is refused with
    /// `BluetoothError/misuse(_:)`. Subscribed centrals left out for their link's security or
    /// ATT_MTU are counted (``withheldNotifications(characteristic:service:)``). Waits while the
    /// link's buffers are full, so a fast producer slows to the link's pace.
    func notify(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier?) async throws(BluetoothError)
        -> Int
    /// Indicates `value` to `central` and waits for its confirmation. A central whose link does
    /// not meet the characteristic's read security is refused with `BluetoothError/attribute(_:on:)`
    /// carrying the code a read would get (and counted as withheld); a value longer than the
    /// link's ATT_MTU − 3 is refused with `BluetoothError/misuse(_:)`, never sent cut.
    func indicate(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier, timeout: Duration)
        async throws(BluetoothError)
    /// How many notifications and indications of the characteristic `uuid` in `service` were
    /// not sent because a subscribed central's link did not meet the characteristic's read
    /// security (its encryption was lost, or a subscription was left from an earlier link), and
    /// how many notifications sent to every subscriber left a subscribed central out because the
    /// value was longer than its link's ATT_MTU − 3. The default is 0. CoreBluetooth refuses
    /// centrals that fall short of the security itself, so there only the second kind is counted.
    func withheldNotifications(characteristic uuid: BluetoothUUID, service: BluetoothUUID) async -> Int
    /// Replaces the stored value reads return (for characteristics without a read handler).
    func setValue(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID) async throws(BluetoothError)
    /// Changes the served database while centrals are connected: removes every service whose UUID
    /// is in `removing`, adds `adding`, and indicates Service Changed to the centrals that turned
    /// it on (returning once they confirmed or failed to). Services that stay keep their handles.
    /// The default throws `BluetoothError/unsupported(_:)`.
    func changeServices(removing: [BluetoothUUID], adding: [ServiceDefinition]) async throws(BluetoothError)
    /// What happens from now on; each call returns a new stream, ending when serving stops.
    func events() -> AsyncStream<PeripheralEvent>
    /// The centrals connected now.
    func centrals() async -> [CentralIdentifier]
    /// Stops advertising, disconnects every central and tears the database down.
    func stop() async
    /// Serves connection-oriented L2CAP channels on `psm` (nil: the backend picks a free dynamic
    /// PSM; CoreBluetooth always picks), to centrals whose link meets `security` (others are
    /// refused with the spec's insufficient-security result). The default throws
    /// `BluetoothError/unsupported(_:)`.
    func serveL2CAPChannels(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
}

extension ServingBackend {
    public func serveL2CAPChannels(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
    {
        throw .unsupported("L2CAP channels on this backend")
    }

    public func withheldNotifications(characteristic uuid: BluetoothUUID, service: BluetoothUUID) async -> Int { 0 }

    public func changeServices(removing: [BluetoothUUID], adding: [ServiceDefinition]) async throws(BluetoothError) {
        throw .unsupported("changing the served services on this backend")
    }
}

/// A device being served: notify and indicate typed values, watch centrals come and go.
///
/// ```swift
/// let served = try await ServedPeripheral.start(strap, on: backend)
/// try await served.notify(.heartRateMeasurement, HeartRateMeasurement(heartRate: 72))
/// ```
public struct ServedPeripheral: Sendable {
    /// The backend serving the device.
    public let backend: any ServingBackend
    /// What the device serves.
    public let definition: PeripheralDefinition

    /// Serves `definition` on `backend`.
    public static func start(_ definition: PeripheralDefinition, on backend: any PeripheralBackend) async throws(BluetoothError) -> ServedPeripheral {
        ServedPeripheral(backend: try await backend.serve(definition), definition: definition)
    }

    /// A handle on `definition` served by `backend`.
    public init(backend: any ServingBackend, definition: PeripheralDefinition) {
        self.backend = backend
        self.definition = definition
    }

    /// Notifies a typed value to every subscribed central (or one); returns how many got it.
    ///
    /// A notification carries at most ATT_MTU − 3 bytes (20 on a link that kept the default
    /// ATT_MTU of 23), and a value is never cut: to every subscriber, it goes whole to each
    /// central whose link carries it, and the others are left out and counted in
    /// ``withheldNotifications(_:)``; to one `central` whose link cannot carry it, it is refused
    /// with ``BluetoothError/misuse(_:)``.
    @discardableResult
    public func notify<V: ByteEncodable, A: NotifyAccess>(
        _ characteristic: Characteristic<V, A>, _ value: V, to central: CentralIdentifier? = nil
    ) async throws(BluetoothError) -> Int {
        let bytes: [UInt8]
        do { bytes = try value.encodedBytes() } catch { throw .encoding(error) }
        return try await backend.notify(bytes, characteristic: characteristic.uuid, service: characteristic.service, to: central)
    }

    /// Indicates a typed value to `central` and waits for the confirmation. A value longer than
    /// the link's ATT_MTU − 3 is refused with ``BluetoothError/misuse(_:)``, never sent cut.
    public func indicate<V: ByteEncodable, A: IndicateAccess>(
        _ characteristic: Characteristic<V, A>, _ value: V, to central: CentralIdentifier, timeout: Duration = .seconds(30)
    ) async throws(BluetoothError) {
        let bytes: [UInt8]
        do { bytes = try value.encodedBytes() } catch { throw .encoding(error) }
        try await backend.indicate(bytes, characteristic: characteristic.uuid, service: characteristic.service, to: central, timeout: timeout)
    }

    /// How many values of `characteristic` were not notified or indicated to a subscribed
    /// central because its link did not meet the characteristic's read security, or (notified to
    /// every subscriber) could not carry the whole value in its ATT_MTU − 3.
    public func withheldNotifications<V, A: SubscribeAccess>(_ characteristic: Characteristic<V, A>) async -> Int {
        await backend.withheldNotifications(characteristic: characteristic.uuid, service: characteristic.service)
    }

    /// Replaces the stored value of a readable characteristic.
    public func setValue<V: ByteEncodable, A: ReadAccess>(_ characteristic: Characteristic<V, A>, _ value: V) async throws(BluetoothError) {
        let bytes: [UInt8]
        do { bytes = try value.encodedBytes() } catch { throw .encoding(error) }
        try await backend.setValue(bytes, characteristic: characteristic.uuid, service: characteristic.service)
    }

    /// Connections, subscriptions and writes, as they happen.
    public func events() -> AsyncStream<PeripheralEvent> { backend.events() }

    /// Changes the served services while centrals are connected, with Service Changed (see
    /// ``ServingBackend/changeServices(removing:adding:)``): a device updating its firmware, or
    /// showing a service only in some mode.
    public func changeServices(removing: [BluetoothUUID] = [], adding: [ServiceDefinition] = []) async throws(BluetoothError) {
        try await backend.changeServices(removing: removing, adding: adding)
    }

    /// Runs `session` once for each central that connects from now on, concurrently, until
    /// serving stops or the calling task is cancelled. The session's `sleep` sleeps on `clock`
    /// and returns false once its central disconnected (or the task was cancelled): how a device
    /// runs its per-central behaviour (a camera's sender, a band's one-second tick).
    public func serveEachCentral(
        clock: any Clock<Duration> = ContinuousClock(),
        _ session: @escaping @Sendable (_ central: CentralIdentifier, _ sleep: @escaping @Sendable (Duration) async -> Bool) async -> Void
    ) async {
        let connected = Locked<Set<CentralIdentifier>>([])
        await withTaskGroup(of: Void.self) { group in
            for await event in events() {
                switch event {
                case .connected(let central):
                    connected.withLock { _ = $0.insert(central) }
                    group.addTask {
                        await session(central) { duration in
                            do { try await clock.sleep(for: duration) } catch { return false }
                            return connected.withLock { $0.contains(central) }
                        }
                    }
                case .disconnected(let central):
                    connected.withLock { _ = $0.remove(central) }
                default:
                    break
                }
            }
            connected.withLock { $0.removeAll() }
            group.cancelAll()
        }
    }
    /// The centrals connected now.
    public func centrals() async -> [CentralIdentifier] { await backend.centrals() }
    /// Stops advertising and serving, and disconnects every central.
    public func stop() async { await backend.stop() }
}
