import HaraldCodec
import HaraldCore
import HaraldProfiles

/// Produces a characteristic's value for a read: the whole value, at most 512 bytes (the server
/// cuts it for the MTU and for Read Blob offsets). A value longer than a Read Response holds
/// (ATT_MTU − 1 bytes) is read in parts; the handler runs once, for the first, and the central's
/// Read Blobs for the rest are answered from what it returned, so a changing value is read as one
/// version. Throw an `ATTErrorCode` to refuse (an application error 0x80–0x9F, say).
public typealias AttributeReadHandler = @Sendable (AttributeRequest) async throws(ATTErrorCode) -> [UInt8]

/// Takes a written value (the whole value: prepared writes are assembled first). Throw an
/// `ATTErrorCode` to refuse; otherwise the value is also stored as the characteristic's value.
public typealias AttributeWriteHandler = @Sendable (AttributeRequest, [UInt8]) async throws(ATTErrorCode) -> Void

/// A characteristic this device serves: its UUID, properties, the security reads and writes
/// need, a stored value, handlers, and descriptors. A Client Characteristic Configuration
/// descriptor is added by the server when the characteristic notifies or indicates.
///
/// Build one from the same typed ``Characteristic`` specs a central uses — the value type decides
/// the encoding, the access type the properties:
///
/// ```swift
/// CharacteristicDefinition(.bodySensorLocation, value: .chest)
/// CharacteristicDefinition(.batteryLevel, security: .encrypted) { _ in BatteryLevel(87) }
/// CharacteristicDefinition(.heartRateControlPoint) { command, _ in try reset(command) }
/// CharacteristicDefinition(.heartRateMeasurement)   // notified with ServedPeripheral.notify
/// ```
public struct CharacteristicDefinition: Sendable {
    /// The characteristic type.
    public var uuid: BluetoothUUID
    /// The properties its declaration announces (read, write, notify, …).
    public var properties: CharacteristicProperties
    /// What a read needs; what a write needs.
    public var readSecurity: AttributeSecurity
    /// What a write needs from the link.
    public var writeSecurity: AttributeSecurity
    /// The stored value: what reads return when there is no read handler (writes replace it).
    public var value: [UInt8]
    /// Produces the value for each read; nil serves ``value``.
    public var onRead: AttributeReadHandler?
    /// Takes each written value; nil stores it in ``value``.
    public var onWrite: AttributeWriteHandler?
    /// Characteristic User Description (0x2901), read-only.
    public var userDescription: String?
    /// Characteristic Presentation Format (0x2904), read-only: how a generic client shows the
    /// value (format, exponent, unit).
    public var presentationFormat: CharacteristicPresentationFormat?
    /// Asked before each read, write and subscription of this characteristic; nil lets every
    /// central with the required link security in. See ``authorized(by:)``.
    public var authorize: AttributeAuthorizationHandler?

    /// A characteristic from raw parts.
    public init(
        uuid: BluetoothUUID, properties: CharacteristicProperties, readSecurity: AttributeSecurity = .none,
        writeSecurity: AttributeSecurity = .none, value: [UInt8] = [], userDescription: String? = nil, onRead: AttributeReadHandler? = nil,
        onWrite: AttributeWriteHandler? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        self.readSecurity = readSecurity
        self.writeSecurity = writeSecurity
        self.value = value
        self.userDescription = userDescription
        self.onRead = onRead
        self.onWrite = onWrite
    }

    /// A characteristic with the properties its access type gives and, when it is readable, a
    /// stored value (encoded with its value type).
    public init<V: ByteEncodable, A>(_ characteristic: Characteristic<V, A>, value: V? = nil, security: AttributeSecurity = .none) throws(ByteEncodingError) {
        var bytes: [UInt8] = []
        if let value { bytes = try value.encodedBytes() }
        self.init(uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security, value: bytes)
    }

    /// A characteristic that can only notify or indicate (its values go out through
    /// ``ServedPeripheral/notify(_:_:to:)``).
    public init<V, A: SubscribeAccess>(_ characteristic: Characteristic<V, A>, security: AttributeSecurity = .none) {
        self.init(uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security)
    }

    /// A readable characteristic whose value `read` produces for each read.
    public init<V: ByteEncodable & SendableMetatype, A: ReadAccess>(
        _ characteristic: Characteristic<V, A>, security: AttributeSecurity = .none,
        read: @escaping @Sendable (AttributeRequest) async throws(ATTErrorCode) -> V
    ) {
        self.init(
            uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security,
            onRead: { request throws(ATTErrorCode) in
                let value = try await read(request)
                do { return try value.encodedBytes() } catch { throw .unlikelyError }
            })
    }

    /// A writable characteristic whose written values `write` takes, decoded: bytes that do not
    /// decode as `V` are refused with Value Not Allowed (0x13) before `write` sees them.
    public init<V: ByteDecodable & Sendable & SendableMetatype, A: WriteAccess>(
        _ characteristic: Characteristic<V, A>, security: AttributeSecurity = .none,
        write: @escaping @Sendable (V, AttributeRequest) async throws(ATTErrorCode) -> Void
    ) {
        self.init(
            uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security,
            onWrite: Self.decoding(write))
    }

    /// A characteristic written without response whose values `write` takes, decoded (bytes
    /// that do not decode are dropped: a Write Command has no answer to refuse them with).
    public init<V: ByteDecodable & Sendable & SendableMetatype, A: WriteWithoutResponseAccess>(
        _ characteristic: Characteristic<V, A>, security: AttributeSecurity = .none,
        write: @escaping @Sendable (V, AttributeRequest) async throws(ATTErrorCode) -> Void
    ) {
        self.init(
            uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security,
            onWrite: Self.decoding(write))
    }

    /// A characteristic written both ways whose values `write` takes, decoded.
    public init<V: ByteDecodable & Sendable & SendableMetatype, A: WriteAccess & WriteWithoutResponseAccess>(
        _ characteristic: Characteristic<V, A>, security: AttributeSecurity = .none,
        write: @escaping @Sendable (V, AttributeRequest) async throws(ATTErrorCode) -> Void
    ) {
        self.init(
            uuid: characteristic.uuid, properties: Self.properties(of: A.self), readSecurity: security, writeSecurity: security,
            onWrite: Self.decoding(write))
    }

    /// A raw write handler that decodes first: bytes that are not a `V` are Value Not Allowed (0x13).
    private static func decoding<V: ByteDecodable & Sendable & SendableMetatype>(
        _ write: @escaping @Sendable (V, AttributeRequest) async throws(ATTErrorCode) -> Void
    ) -> AttributeWriteHandler {
        { request, bytes throws(ATTErrorCode) in
            let value: V
            do { value = try V(decoding: bytes) } catch { throw .valueNotAllowed }
            try await write(value, request)
        }
    }

    /// This characteristic with a User Description descriptor (0x2901) holding `text`.
    public func described(_ text: String) -> CharacteristicDefinition {
        var copy = self
        copy.userDescription = text
        return copy
    }

    /// This characteristic with a Presentation Format descriptor (0x2904).
    public func formatted(_ format: CharacteristicPresentationFormat) -> CharacteristicDefinition {
        var copy = self
        copy.presentationFormat = format
        return copy
    }

    /// This characteristic, with `rule` deciding each read, write and subscription: a central
    /// it refuses gets Insufficient Authorization (0x08).
    ///
    /// ```swift
    /// CharacteristicDefinition(.heartRateControlPoint) { command, _ in try reset(command) }
    ///     .authorized { request, _ in await allowList.contains(request.central) }
    /// ```
    public func authorized(by rule: @escaping AttributeAuthorizationHandler) -> CharacteristicDefinition {
        var copy = self
        copy.authorize = rule
        return copy
    }

    /// The properties an access type stands for.
    public static func properties<A>(of access: A.Type) -> CharacteristicProperties {
        var properties: CharacteristicProperties = []
        if access is any ReadAccess.Type { properties.insert(.read) }
        if access is any WriteAccess.Type { properties.insert(.write) }
        if access is any WriteWithoutResponseAccess.Type { properties.insert(.writeWithoutResponse) }
        if access is any NotifyAccess.Type { properties.insert(.notify) }
        if access is any IndicateAccess.Type { properties.insert(.indicate) }
        return properties
    }
}
