import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import Logging

/// Identifying a central by its connection.
extension CentralIdentifier {
    /// The central a connection of Harald's GATT server stands for (what handlers and events of
    /// definitions served by that server name it).
    public init(_ connection: GATTConnectionID) { self.init(rawValue: "central #\(connection.rawValue)") }
}

/// A service definition as Harald's GATT server takes it.
extension ServiceDefinition {
    /// This service in the engine's terms (as `PeripheralDefinition.gattServices()` gives each).
    package var gattService: GATTServiceDefinition {
        GATTServiceDefinition(uuid: uuid, isPrimary: isPrimary, characteristics: characteristics.map(PeripheralDefinition.gattCharacteristic))
    }
}

/// A definition as GATT server services.
extension PeripheralDefinition {
    /// The definition as Harald's GATT server takes it: permissions from the properties and the
    /// security each side needs, handlers adapted, a User Description descriptor where given.
    package func gattServices() -> [GATTServiceDefinition] { services.map(\.gattService) }

    package static func gattCharacteristic(_ definition: CharacteristicDefinition) -> GATTCharacteristicDefinition {
        var permissions: GATTPermissions = []
        if definition.properties.contains(.read) { permissions.insert(.read) }
        // The read security applies to the value however it leaves the device: a read, a
        // notification or an indication (the CCCD's writes need it too), so a characteristic that
        // only notifies keeps it as well.
        if !definition.properties.isDisjoint(with: [.read, .notify, .indicate]) {
            permissions.formUnion(Self.permissions(definition.readSecurity, isWrite: false))
        }
        if !definition.properties.isDisjoint(with: [.write, .writeWithoutResponse]) {
            permissions.insert(.write)
            permissions.formUnion(Self.permissions(definition.writeSecurity, isWrite: true))
        }
        var onRead: GATTReadHandler?
        if let read = definition.onRead {
            onRead = { (context: GATTRequestContext) async throws -> [UInt8] in try await read(GATTServing.request(context)) }
        }
        var onWrite: GATTWriteHandler?
        if let write = definition.onWrite {
            onWrite = { (context: GATTRequestContext, bytes: [UInt8]) async throws in try await write(GATTServing.request(context), bytes) }
        }
        var authorize: GATTAttributeAuthorizationHandler?
        if let rule = definition.authorize {
            authorize = { (context: GATTRequestContext, access: GATTAccess) async -> Bool in
                let asked: AttributeAccess =
                    switch access {
                    case .read: .read
                    case .write: .write
                    case .configure: .subscribe
                    }
                return await rule(GATTServing.request(context), asked)
            }
        }
        var descriptors: [GATTDescriptorDefinition] = definition.userDescription.map { [.userDescription($0)] } ?? []
        if let format = definition.presentationFormat, let bytes = try? format.encodedBytes() {
            descriptors.append(GATTDescriptorDefinition(uuid: GATTAttributeType.characteristicPresentationFormat, value: bytes))
        }
        var characteristic = GATTCharacteristicDefinition(
            uuid: definition.uuid, properties: definition.properties, permissions: permissions, value: definition.value,
            descriptors: descriptors, onRead: onRead, onWrite: onWrite, authorize: authorize)
        characteristic.minimumReadKeySize = definition.readSecurity.minimumKeySize
        characteristic.minimumWriteKeySize = definition.writeSecurity.minimumKeySize
        return characteristic
    }

    /// The ATT permission bits of a security requirement, for reads or writes.
    static func permissions(_ security: AttributeSecurity, isWrite: Bool) -> GATTPermissions {
        var permissions: GATTPermissions = []
        if security.level >= .encrypted { permissions.insert(isWrite ? .writeEncrypted : .readEncrypted) }
        if security.level >= .authenticated { permissions.insert(isWrite ? .writeAuthenticated : .readAuthenticated) }
        if security.level >= .authenticatedSecureConnections { permissions.insert(isWrite ? .writeSecureConnections : .readSecureConnections) }
        return permissions
    }
}

/// A `PeripheralDefinition` served by Harald's GATT server, whatever carries its links (the
/// HCI host's ATT channels, the simulator's links): the `ServingBackend` both backends share.
public final class GATTServing: ServingBackend {
    /// Events an ``events()`` stream holds for a reader that falls behind; the oldest go first.
    static let eventBufferLimit = 256

    /// The GATT server holding the definition's attributes.
    public let server: GATTServer
    private let stopLink: @Sendable () async -> Void
    private let watchers = StreamBroadcast<PeripheralEvent>(bufferingNewest: eventBufferLimit)
    private let connected = Locked<Set<GATTConnectionID>>([])
    private let reader = Locked<Task<Void, Never>?>(nil)
    private let logger: Logger
    /// Value handles whose withheld notifications were logged already (logged once each).
    private let loggedWithheld = Locked<Set<UInt16>>([])

    /// Serves connection-oriented L2CAP channels on the links this definition is served on (the
    /// HCI host's, the simulated ones): a PSM or nil for any free one, the security each channel
    /// needs, the options.
    public typealias ChannelServing =
        @Sendable (L2CAPPSM?, SecurityLevel, L2CAPChannelOptions) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
    private let channelServing = Locked<ChannelServing?>(nil)

    /// Lets ``serveL2CAPChannels(psm:security:options:)`` serve channels with `serving` (set once
    /// by the backend that serves the definition).
    public func setChannelServing(_ serving: @escaping ChannelServing) { channelServing.withLock { $0 = serving } }

    public func serveL2CAPChannels(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions) async throws(BluetoothError)
        -> any L2CAPChannelServerBackend
    {
        guard let serving = channelServing.withLock({ $0 }) else { throw .unsupported("L2CAP channels on this backend") }
        return try await serving(psm, security, options)
    }

    /// Serves through `server`; `stop` tears down what carries the links (advertising, the host).
    /// The first notification or indication of each characteristic withheld for a central's
    /// security is logged to `logger` at notice level.
    public init(
        server: GATTServer, taskStarter: TaskStarter = .default, logger: Logger = Logger(label: "harald.peripheral"),
        stop: @escaping @Sendable () async -> Void
    ) {
        self.server = server
        self.logger = logger
        self.stopLink = stop
        let task = taskStarter.start { [weak self] in
            for await event in server.events {
                guard let self else { return }
                await self.forward(event)
            }
            self?.finishWatchers()
        }
        reader.withLock { $0 = task }
    }

    /// The central a server connection stands for.
    static func central(_ connection: GATTConnectionID) -> CentralIdentifier { CentralIdentifier(connection) }

    static func request(_ context: GATTRequestContext) -> AttributeRequest {
        AttributeRequest(
            central: central(context.connection), isEncrypted: context.security.isEncrypted, isAuthenticated: context.security.isAuthenticated,
            keySize: context.security.isEncrypted ? context.security.keySize : nil)
    }

    private func connection(for central: CentralIdentifier) -> GATTConnectionID? {
        connected.withLock { ids in ids.first { Self.central($0) == central } }
    }

    private func valueHandle(_ uuid: BluetoothUUID, in service: BluetoothUUID) async throws(BluetoothError) -> UInt16 {
        guard let characteristic = await server.database.characteristic(uuid, in: service) else {
            throw .notFound("characteristic \(uuid) in service \(service) is not in the served database")
        }
        return characteristic.valueHandle
    }

    public func notify(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier?)
        async throws(BluetoothError)
        -> Int
    {
        let handle = try await valueHandle(uuid, in: service)
        let sent: Int
        if let central {
            guard let id = connection(for: central) else { throw .notFound("\(central) is not connected") }
            // A value this central's link cannot carry whole is refused, not cut (nor skipped
            // quietly): the caller named the central.
            if let mtu = await server.mtu(for: id), value.count > mtu - 3,
                await server.clientConfiguration(valueHandle: handle, connection: id).contains(.notifications)
            {
                throw .misuse(Self.tooLong(value.count, limit: mtu - 3, for: "a notification"))
            }
            sent = await server.notify(handle: handle, value: value, to: id)
        } else {
            sent = await server.notify(handle: handle, value: value)
        }
        noteWithheld(handle, characteristic: uuid)
        return sent
    }

    public func withheldNotifications(characteristic uuid: BluetoothUUID, service: BluetoothUUID) async -> Int {
        guard let handle = try? await valueHandle(uuid, in: service) else { return 0 }
        return server.withheldNotifications(valueHandle: handle)
    }

    /// What refuses a value longer than a link's ATT_MTU − 3.
    static func tooLong(_ count: Int, limit: Int, for update: String) -> String {
        "\(update) carries at most ATT_MTU − 3 = \(limit) bytes on this central's link, this value has \(count): "
            + "shorten it, or let the central read the whole value"
    }

    /// Logs, once per characteristic, that values of it were withheld from a central whose link
    /// does not meet its read security or cannot carry the whole value: never silent, never once
    /// per value.
    private func noteWithheld(_ handle: UInt16, characteristic uuid: BluetoothUUID) {
        let withheld = server.withheldNotifications(valueHandle: handle)
        guard withheld > 0, loggedWithheld.withLock({ $0.insert(handle).inserted }) else { return }
        logger.notice(
            "values withheld from a subscribed central whose link does not meet the characteristic's read security or cannot carry the value",
            metadata: ["characteristic": "\(uuid)", "withheld": "\(withheld)"])
    }

    public func indicate(
        _ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID, to central: CentralIdentifier, timeout: Duration
    ) async throws(BluetoothError) {
        let handle = try await valueHandle(uuid, in: service)
        guard let id = connection(for: central) else { throw .notFound("\(central) is not connected") }
        do { try await server.indicate(handle: handle, value: value, connection: id, timeout: timeout) } catch {
            noteWithheld(handle, characteristic: uuid)
            switch error {
            case .timeout: throw .timeout(operation: "indication of \(uuid)", after: timeout)
            case .disconnected: throw .disconnected(.connectionLost)
            case .cancelled: throw .cancelled
            case let .attribute(code, _, _): throw .attribute(code, on: nil)
            case .invalidArgument(let detail): throw .misuse("indication of \(uuid): \(detail)")
            default: throw .backend("indication of \(uuid): \(error)")
            }
        }
    }

    public func setValue(_ value: [UInt8], characteristic uuid: BluetoothUUID, service: BluetoothUUID) async throws(BluetoothError) {
        let handle = try await valueHandle(uuid, in: service)
        await server.setValue(value, handle: handle)
    }

    public func changeServices(removing: [BluetoothUUID], adding: [ServiceDefinition]) async throws(BluetoothError) {
        let definitions = PeripheralDefinition(advertisement: PeripheralAdvertisement(), services: adding).gattServices()
        do { try await server.replaceServices(removing, with: definitions) } catch { throw .backend("the new services: \(error)") }
    }

    public func events() -> AsyncStream<PeripheralEvent> {
        watchers.makeStream()
    }

    /// Hands `event` to every events stream: how what carries the links (the HCI peripheral's
    /// Security Manager, say) reports what the GATT server does not see.
    public func report(_ event: PeripheralEvent) {
        watchers.yield(event)
    }

    public func centrals() async -> [CentralIdentifier] {
        connected.withLock { $0.sorted { $0.rawValue < $1.rawValue }.map(Self.central) }
    }

    public func stop() async {
        reader.withLock { $0 }?.cancel()
        for id in await server.connectionIDs { await server.disconnect(id) }
        await stopLink()
        finishWatchers()
    }

    private func forward(_ event: GATTServerEvent) async {
        let translated: PeripheralEvent?
        switch event {
        case .connected(let id):
            connected.withLock { _ = $0.insert(id) }
            translated = .connected(Self.central(id))
        case .disconnected(let id, _):
            connected.withLock { _ = $0.remove(id) }
            translated = .disconnected(Self.central(id))
        case let .clientConfigurationChanged(id, valueHandle, configuration):
            let uuid = await characteristicUUID(valueHandle: valueHandle)
            translated = uuid.map { .subscriptionChanged(Self.central(id), characteristic: $0, notifying: !configuration.isEmpty) }
        case let .valueWritten(id, handle):
            let uuid = await characteristicUUID(valueHandle: handle)
            translated = uuid.map { .wrote(Self.central(id), characteristic: $0) }
        case let .valueRead(id, handle):
            let uuid = await characteristicUUID(valueHandle: handle)
            translated = uuid.map { .read(Self.central(id), characteristic: $0) }
        }
        guard let translated else { return }
        watchers.yield(translated)
    }

    /// The UUID of the characteristic whose value is at `valueHandle` (nil for a descriptor).
    private func characteristicUUID(valueHandle: UInt16) async -> BluetoothUUID? {
        await server.database.characteristics.first { $0.characteristic.valueHandle == valueHandle }?.characteristic.uuid
    }

    private func finishWatchers() { watchers.finish() }
}
