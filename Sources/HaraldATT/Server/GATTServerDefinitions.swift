import HaraldCodec
import HaraldCore

/// What a client must have to read or write an attribute.
public struct GATTPermissions: OptionSet, Sendable, Hashable {
    /// One bit per permission or security requirement; the bits are Harald's, not an ATT wire field.
    public var rawValue: UInt16
    /// The permissions with these bits set.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The value may be read (else Read Not Permitted).
    public static let read = GATTPermissions(rawValue: 1 << 0)
    /// The value may be written (else Write Not Permitted).
    public static let write = GATTPermissions(rawValue: 1 << 1)
    /// Reading needs an encrypted link (else Insufficient Encryption).
    public static let readEncrypted = GATTPermissions(rawValue: 1 << 2)
    /// Reading needs an authenticated (MITM-protected) pairing (else Insufficient Authentication).
    public static let readAuthenticated = GATTPermissions(rawValue: 1 << 3)
    /// Reading needs the server's authorization hook to agree (else Insufficient Authorization).
    public static let readAuthorized = GATTPermissions(rawValue: 1 << 4)
    /// Writing needs an encrypted link.
    public static let writeEncrypted = GATTPermissions(rawValue: 1 << 5)
    /// Writing needs an authenticated pairing.
    public static let writeAuthenticated = GATTPermissions(rawValue: 1 << 6)
    /// Writing needs the server's authorization hook to agree.
    public static let writeAuthorized = GATTPermissions(rawValue: 1 << 7)

    /// Readable and writable.
    public static let readWrite: GATTPermissions = [.read, .write]
}

/// The security of one connection, as the link layer and SMP established it.
public struct GATTSecurity: Sendable, Hashable {
    /// The link is encrypted.
    public var isEncrypted: Bool
    /// The keys came from an authenticated (MITM-protected) pairing.
    public var isAuthenticated: Bool

    /// A link's security: encrypted, and whether its key is MITM-protected.
    public init(isEncrypted: Bool = false, isAuthenticated: Bool = false) {
        self.isEncrypted = isEncrypted
        self.isAuthenticated = isAuthenticated
    }

    /// A fresh, unencrypted link.
    public static let none = GATTSecurity()
}

/// Identifies one client connection of a ``GATTServer``.
public struct GATTConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// A number unique within one server.
    public let rawValue: UInt64
    /// `connection #` and the number, e.g. `connection #3`.
    public var description: String { "connection #\(rawValue)" }
}

/// What a read or write handler is told about the request.
public struct GATTRequestContext: Sendable, Hashable {
    /// The client connection asking.
    public var connection: GATTConnectionID
    /// The attribute handle.
    public var handle: UInt16
    /// The connection's security at the time of the request.
    public var security: GATTSecurity
}

/// Produces an attribute value on demand. Throw an `ATTErrorCode` (an application error
/// 0x80–0x9F, say) to refuse; the client gets it in an Error Response. Any other error is
/// answered with Unlikely Error (0x0E). The whole value is returned: the server cuts it for the
/// MTU and for long-read offsets.
public typealias GATTReadHandler = @Sendable (GATTRequestContext) async throws -> [UInt8]

/// Accepts a written value (the whole value; prepared writes are assembled first). Throw an
/// `ATTErrorCode` to refuse (other errors become Unlikely Error); otherwise the server also
/// stores the value.
public typealias GATTWriteHandler = @Sendable (GATTRequestContext, [UInt8]) async throws -> Void

/// Decides whether a connection may access an attribute marked `readAuthorized` or
/// `writeAuthorized`.
public typealias GATTAuthorizationHandler = @Sendable (_ connection: GATTConnectionID, _ handle: UInt16, _ isWrite: Bool) async -> Bool

/// What a client is asking to do with a characteristic, as an authorization hook sees it.
public enum GATTAccess: Sendable, Hashable {
    /// Read the value (Read, Read Blob, Read Multiple, Read By Type).
    case read
    /// Write the value (with or without response, or an executed prepared write).
    case write
    /// Write its Client Characteristic Configuration (turn notifications or indications on or off).
    case configure
}

/// Decides, for one characteristic, whether a connection may do `access` now; refused requests
/// get Insufficient Authorization (0x08). Asked after the encryption and authentication checks.
public typealias GATTAttributeAuthorizationHandler = @Sendable (GATTRequestContext, GATTAccess) async -> Bool

/// A descriptor in a declarative service description.
public struct GATTDescriptorDefinition: Sendable {
    /// The descriptor type.
    public var uuid: BluetoothUUID
    /// What a client may do with it.
    public var permissions: GATTPermissions
    /// Initial (stored) value.
    public var value: [UInt8]
    /// Produces the value on each read; nil serves the stored value.
    public var onRead: GATTReadHandler?
    /// Takes each written value; nil stores it.
    public var onWrite: GATTWriteHandler?

    /// A descriptor from its parts.
    public init(uuid: BluetoothUUID, permissions: GATTPermissions = .read, value: [UInt8] = [], onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil) {
        self.uuid = uuid
        self.permissions = permissions
        self.value = value
        self.onRead = onRead
        self.onWrite = onWrite
    }

    /// A Characteristic User Description (0x2901), read-only UTF-8 text.
    public static func userDescription(_ text: String) -> GATTDescriptorDefinition {
        GATTDescriptorDefinition(uuid: GATTAttributeType.characteristicUserDescription, value: Array(text.utf8))
    }
}

/// A characteristic in a declarative service description. A Client Characteristic
/// Configuration descriptor is added automatically when `properties` has notify or indicate
/// (unless `descriptors` already holds one).
public struct GATTCharacteristicDefinition: Sendable {
    /// The characteristic type.
    public var uuid: BluetoothUUID
    /// The properties its declaration announces (read, write, notify, …).
    public var properties: CharacteristicProperties
    /// What a client may do with the value, and what security it needs.
    public var permissions: GATTPermissions
    /// Initial (stored) value; reads return it unless `onRead` is set.
    public var value: [UInt8]
    /// Produces the value on each read; nil serves the stored value.
    public var onRead: GATTReadHandler?
    /// Takes each written value; nil stores it.
    public var onWrite: GATTWriteHandler?
    /// Its descriptors other than the CCCD, which the server adds for notify and indicate.
    public var descriptors: [GATTDescriptorDefinition]
    /// Asked before every read, write and CCCD write of this characteristic (nil: no hook).
    public var authorize: GATTAttributeAuthorizationHandler?

    /// A characteristic from its parts.
    public init(
        uuid: BluetoothUUID, properties: CharacteristicProperties, permissions: GATTPermissions? = nil, value: [UInt8] = [],
        descriptors: [GATTDescriptorDefinition] = [], onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil,
        authorize: GATTAttributeAuthorizationHandler? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        var implied: GATTPermissions = []
        if properties.contains(.read) { implied.insert(.read) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites]) { implied.insert(.write) }
        self.permissions = permissions ?? implied
        self.value = value
        self.onRead = onRead
        self.onWrite = onWrite
        self.descriptors = descriptors
        self.authorize = authorize
    }
}

/// A service in a declarative description: handles are assigned in declaration order.
public struct GATTServiceDefinition: Sendable {
    /// The service type.
    public var uuid: BluetoothUUID
    /// Whether it is a primary service (else secondary).
    public var isPrimary: Bool
    /// UUIDs of other services of the same database that this one includes.
    public var includes: [BluetoothUUID]
    /// Its characteristics, in handle order.
    public var characteristics: [GATTCharacteristicDefinition]

    /// A service from its parts; `includes` names services it includes, by UUID.
    public init(uuid: BluetoothUUID, isPrimary: Bool = true, includes: [BluetoothUUID] = [], characteristics: [GATTCharacteristicDefinition]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includes = includes
        self.characteristics = characteristics
    }
}
