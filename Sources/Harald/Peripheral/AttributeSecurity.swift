import HaraldCodec
import HaraldCore

/// What a central's link must have before it may read or write an attribute (Core spec Vol 3
/// Part C §10.3): a GAP security level and, for encrypted levels, the shortest encryption key
/// accepted. A central without it is refused as Part C §10.3 and Part F §3.4.1.1 say:
/// Insufficient Authentication (0x05) when it has no bond with this device (or its pairing was
/// unauthenticated where authentication is needed), Insufficient Encryption (0x0F) when it has a
/// bond but has not encrypted with it, Insufficient Encryption Key Size (0x0C) when its key is
/// shorter than ``minimumKeySize``. Phones and Harald's own central pair or encrypt and retry.
///
/// A notification or indication of a characteristic goes only to centrals whose link meets its
/// read security, and subscribing (writing its Client Characteristic Configuration) needs it too.
public struct AttributeSecurity: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The GAP security level the link needs (LE Security Mode 1, Part C §10.2.1).
    public var level: SecurityLevel
    /// The shortest encryption key accepted, in octets (7…16); only asked of encrypted levels.
    /// 16 by default: a shorter key is what the KNOB attack forces.
    public var minimumKeySize: Int

    /// A requirement of `level`, with keys of at least `minimumKeySize` octets (clamped to 7…16).
    public init(level: SecurityLevel, minimumKeySize: Int = 16) {
        self.level = level
        self.minimumKeySize = min(16, max(7, minimumKeySize))
    }

    /// Anyone connected (Level 1).
    public static let none = AttributeSecurity(level: .none)
    /// An encrypted link, any pairing, Just Works included (Level 2), with a 16-octet key.
    public static let encrypted = AttributeSecurity(level: .encrypted)
    /// A link encrypted with an authenticated (MITM-protected) key: passkey or numeric
    /// comparison (Level 3), 16 octets.
    public static let authenticated = AttributeSecurity(level: .authenticated)
    /// A link encrypted with an authenticated LE Secure Connections key of 16 octets (Level 4,
    /// what the spec's Secure Connections Only mode requires of every service). A legacy
    /// pairing never reaches it.
    public static let authenticatedSecureConnections = AttributeSecurity(level: .authenticatedSecureConnections)

    /// This requirement accepting keys of `octets` octets or more (7…16): an explicit opt-in
    /// for old devices whose controllers cannot do 16-octet keys.
    public func minimumKeySize(_ octets: Int) -> AttributeSecurity { AttributeSecurity(level: level, minimumKeySize: octets) }

    /// Whether the link needs encryption at all.
    public var needsEncryption: Bool { level >= .encrypted }

    /// Ordered by level, then by key size.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.level, lhs.minimumKeySize) < (rhs.level, rhs.minimumKeySize)
    }

    /// The stronger of two requirements: the higher level and the longer minimum key.
    public func combined(with other: AttributeSecurity) -> AttributeSecurity {
        AttributeSecurity(level: max(level, other.level), minimumKeySize: max(minimumKeySize, other.minimumKeySize))
    }

    /// The level's name (`none`, `encrypted`, `authenticated`, …), with the shortest key accepted
    /// when it is under 16 octets (`encrypted, keys of 7+ octets`).
    public var description: String {
        level == .none ? "none" : minimumKeySize == 16 ? "\(level)" : "\(level), keys of \(minimumKeySize)+ octets"
    }
}

/// One central connected to this device, as the peripheral side names it (valid while it is
/// connected; a central that reconnects may get a new one).
public struct CentralIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The backend's text form (an address on HCI, a UUID on CoreBluetooth).
    public let rawValue: String
    /// An identifier from its text form.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The backend's text form, ``rawValue``.
    public var description: String { rawValue }
}

/// Who is asking, in a read or write handler.
public struct AttributeRequest: Sendable, Hashable {
    /// The central asking.
    public var central: CentralIdentifier
    /// Whether its link is encrypted now.
    public var isEncrypted: Bool
    /// Whether that link is encrypted with a MITM-protected (authenticated) key.
    public var isAuthenticated: Bool
    /// The link's encryption key size in octets (7…16) when it is encrypted and the backend
    /// knows it; nil otherwise.
    public var keySize: Int?

    /// A request from `central` over a link with this security.
    public init(central: CentralIdentifier, isEncrypted: Bool = false, isAuthenticated: Bool = false, keySize: Int? = nil) {
        self.central = central
        self.isEncrypted = isEncrypted
        self.isAuthenticated = isAuthenticated
        self.keySize = keySize
    }
}

/// What a central asks to do with a characteristic, as an authorization hook sees it.
public enum AttributeAccess: Sendable, Hashable {
    /// Read its value.
    case read
    /// Write its value (with or without response).
    case write
    /// Turn its notifications or indications on or off (a write of its CCCD).
    case subscribe
}

/// Decides whether the central of `request` may do `access` now (the device's own rule: a
/// button pressed on the device, an app-level login, a central on an allow list). Refused
/// requests get Insufficient Authorization (0x08). Asked after the link's security is checked.
public typealias AttributeAuthorizationHandler = @Sendable (_ request: AttributeRequest, _ access: AttributeAccess) async -> Bool
