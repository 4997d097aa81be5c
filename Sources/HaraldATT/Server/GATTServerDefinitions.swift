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
    /// Reading needs GAP security Level 4: a link encrypted with an authenticated LE Secure
    /// Connections key of 16 octets (else Insufficient Authentication, or Insufficient
    /// Encryption Key Size for a shorter key).
    public static let readSecureConnections = GATTPermissions(rawValue: 1 << 8)
    /// Writing needs GAP security Level 4 (see ``readSecureConnections``).
    public static let writeSecureConnections = GATTPermissions(rawValue: 1 << 9)

    /// Readable and writable.
    public static let readWrite: GATTPermissions = [.read, .write]
}

/// The security of one connection, as the link layer and SMP established it, and what the
/// server knows of the peer's keys: what the access checks of Core spec Vol 3 Part C §10.3 and
/// Part F §3.4.1.1 need to pick between Insufficient Authentication (0x05), Insufficient
/// Encryption (0x0F) and Insufficient Encryption Key Size (0x0C).
public struct GATTSecurity: Sendable, Hashable {
    /// The link is encrypted.
    public var isEncrypted: Bool
    /// The keys came from an authenticated (MITM-protected) pairing.
    public var isAuthenticated: Bool
    /// The encryption key's size in octets (7…16), when the link is encrypted. 16 unless the
    /// pairing (or the controller) said less.
    public var keySize: Int
    /// The key came from an LE Secure Connections pairing (not legacy pairing).
    public var isSecureConnections: Bool
    /// The GAP security level the peer's stored long-term key would give the link once
    /// encrypted with it; nil when the peer has no long-term key with us (never bonded). A peer
    /// with one is told Insufficient Encryption (encrypt with the key you have) rather than
    /// Insufficient Authentication (pair).
    public var bondedLevel: SecurityLevel?

    /// A link's security: encrypted, whether its key is MITM-protected, its size in octets,
    /// whether it came from LE Secure Connections, and the level of the peer's bond (nil: none).
    public init(
        isEncrypted: Bool = false, isAuthenticated: Bool = false, keySize: Int = 16, isSecureConnections: Bool = false,
        bondedLevel: SecurityLevel? = nil
    ) {
        self.isEncrypted = isEncrypted
        self.isAuthenticated = isAuthenticated
        self.keySize = keySize
        self.isSecureConnections = isSecureConnections
        self.bondedLevel = bondedLevel
    }

    /// A fresh, unencrypted link of a peer without a bond.
    public static let none = GATTSecurity()

    /// Whether the peer has a long-term key with us.
    public var hasLongTermKey: Bool { bondedLevel != nil }

    /// The GAP security level of the link now (LE Security Mode 1, Part C §10.2.1): Level 4 only
    /// for an authenticated LE Secure Connections key of 16 octets.
    public var level: SecurityLevel {
        guard isEncrypted else { return .none }
        guard isAuthenticated else { return .encrypted }
        return isSecureConnections && keySize >= 16 ? .authenticatedSecureConnections : .authenticated
    }
}

/// What one kind of access (reading, or writing) to an attribute needs from the link: the part
/// of ``GATTPermissions`` about security, with the shortest key accepted.
public struct GATTSecurityRequirement: Sendable, Hashable {
    /// The GAP security level needed (`SecurityLevel.none`: nothing).
    public var level: SecurityLevel
    /// The shortest encryption key accepted, in octets (7…16); asked only when `level` needs
    /// encryption. Level 4 always needs 16.
    public var minimumKeySize: Int

    /// A requirement of `level` with keys of at least `minimumKeySize` octets.
    public init(level: SecurityLevel = .none, minimumKeySize: Int = 16) {
        self.level = level
        self.minimumKeySize = min(16, max(7, minimumKeySize))
    }

    /// No security needed.
    public static let none = GATTSecurityRequirement()

    /// The requirement reads (or, with `isWrite`, writes) of an attribute with `permissions` have.
    public init(_ permissions: GATTPermissions, isWrite: Bool, minimumKeySize: Int = 16) {
        let level: SecurityLevel =
            if permissions.contains(isWrite ? .writeSecureConnections : .readSecureConnections) {
                .authenticatedSecureConnections
            } else if permissions.contains(isWrite ? .writeAuthenticated : .readAuthenticated) {
                .authenticated
            } else if permissions.contains(isWrite ? .writeEncrypted : .readEncrypted) { .encrypted } else { .none }
        self.init(level: level, minimumKeySize: minimumKeySize)
    }

    /// Why a link with `security` does not meet this requirement, as the ATT error a server
    /// answers (Part C §10.3, Part F §3.4.1.1); nil when it does:
    /// - not encrypted: Insufficient Encryption (0x0F) when the peer's stored key would give the
    ///   level needed, else Insufficient Authentication (0x05: there is no key, or only one from
    ///   an unauthenticated pairing where authentication is needed — pair again);
    /// - encrypted, but the pairing was unauthenticated where authentication is needed:
    ///   Insufficient Authentication;
    /// - encrypted with a key shorter than required: Insufficient Encryption Key Size (0x0C);
    /// - Level 4 needed, but the key came from legacy pairing: Insufficient Authentication.
    public func refusal(for security: GATTSecurity) -> ATTErrorCode? {
        guard level >= .encrypted else { return nil }
        guard security.isEncrypted else {
            if let bonded = security.bondedLevel, bonded >= level { return .insufficientEncryption }
            return .insufficientAuthentication
        }
        if level >= .authenticated, !security.isAuthenticated { return .insufficientAuthentication }
        let required = level == .authenticatedSecureConnections ? 16 : minimumKeySize
        if security.keySize < required { return .encryptionKeySizeTooShort }
        if level == .authenticatedSecureConnections, !security.isSecureConnections { return .insufficientAuthentication }
        return nil
    }
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
/// MTU and for long-read offsets. A long read (a Read Request or a Read Blob at offset 0 whose
/// answer is cut, then Read Blobs) runs the handler once: that connection's Read Blobs are
/// answered from the value it returned (at most 512 bytes kept), until the last part is read, the
/// read starts again at 0, or the value is written or set.
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

// The engine's own family of server definitions (`package`: the seam between the engine and the
// backends that serve Harald's public definitions, `ServiceDefinition` and
// `CharacteristicDefinition`, which GATTServing translates into these).

/// A descriptor in a declarative service description.
package struct GATTDescriptorDefinition: Sendable {
    /// The descriptor type.
    package var uuid: BluetoothUUID
    /// What a client may do with it.
    package var permissions: GATTPermissions
    /// Initial (stored) value.
    package var value: [UInt8]
    /// Produces the value on each read; nil serves the stored value.
    package var onRead: GATTReadHandler?
    /// Takes each written value; nil stores it.
    package var onWrite: GATTWriteHandler?

    /// A descriptor from its parts.
    package init(
        uuid: BluetoothUUID, permissions: GATTPermissions = .read, value: [UInt8] = [], onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil
    ) {
        self.uuid = uuid
        self.permissions = permissions
        self.value = value
        self.onRead = onRead
        self.onWrite = onWrite
    }

    /// A Characteristic User Description (0x2901), read-only UTF-8 text.
    package static func userDescription(_ text: String) -> GATTDescriptorDefinition {
        GATTDescriptorDefinition(uuid: GATTAttributeType.characteristicUserDescription, value: Array(text.utf8))
    }
}

/// A characteristic in a declarative service description. A Client Characteristic
/// Configuration descriptor is added automatically when `properties` has notify or indicate
/// (unless `descriptors` already holds one).
package struct GATTCharacteristicDefinition: Sendable {
    /// The characteristic type.
    package var uuid: BluetoothUUID
    /// The properties its declaration announces (read, write, notify, …).
    package var properties: CharacteristicProperties
    /// What a client may do with the value, and what security it needs.
    package var permissions: GATTPermissions
    /// Initial (stored) value; reads return it unless `onRead` is set.
    package var value: [UInt8]
    /// Produces the value on each read; nil serves the stored value.
    package var onRead: GATTReadHandler?
    /// Takes each written value; nil stores it.
    package var onWrite: GATTWriteHandler?
    /// Its descriptors other than the CCCD, which the server adds for notify and indicate.
    package var descriptors: [GATTDescriptorDefinition]
    /// Asked before every read, write and CCCD write of this characteristic (nil: no hook).
    package var authorize: GATTAttributeAuthorizationHandler?
    /// The shortest encryption key (octets, 7…16) a read accepts when ``permissions`` make reads
    /// need encryption; the CCCD's writes need the same. 16 by default.
    package var minimumReadKeySize = 16
    /// The shortest encryption key (octets, 7…16) a write accepts when ``permissions`` make
    /// writes need encryption. 16 by default.
    package var minimumWriteKeySize = 16

    /// A characteristic from its parts.
    package init(
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
package struct GATTServiceDefinition: Sendable {
    /// The service type.
    package var uuid: BluetoothUUID
    /// Whether it is a primary service (else secondary).
    package var isPrimary: Bool
    /// UUIDs of other services of the same database that this one includes.
    package var includes: [BluetoothUUID]
    /// Its characteristics, in handle order.
    package var characteristics: [GATTCharacteristicDefinition]

    /// A service from its parts; `includes` names services it includes, by UUID.
    package init(uuid: BluetoothUUID, isPrimary: Bool = true, includes: [BluetoothUUID] = [], characteristics: [GATTCharacteristicDefinition]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includes = includes
        self.characteristics = characteristics
    }
}
