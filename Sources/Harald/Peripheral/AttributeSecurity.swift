import HaraldCodec
import HaraldCore

/// What a central's link must have before it may read or write an attribute (Core spec Vol 3
/// Part C §10.3). A central without it gets Insufficient Encryption (0x0F) or Insufficient
/// Authentication (0x05), which makes phones and Harald's own central pair and retry.
public enum AttributeSecurity: Int, Hashable, Sendable, Comparable {
    /// Anyone connected.
    case none
    /// An encrypted link (any pairing, Just Works included).
    case encrypted
    /// A link encrypted with an authenticated (MITM-protected) key: passkey or numeric comparison.
    case authenticated

    /// Stricter requirements sort later: none, encrypted, authenticated.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
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
    /// Its link's security now: encrypted, and with an authenticated key.
    public var isEncrypted: Bool
    /// Whether that link is encrypted with a MITM-protected (authenticated) key.
    public var isAuthenticated: Bool

    /// A request from `central` over a link with this security.
    public init(central: CentralIdentifier, isEncrypted: Bool = false, isAuthenticated: Bool = false) {
        self.central = central
        self.isEncrypted = isEncrypted
        self.isAuthenticated = isAuthenticated
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
