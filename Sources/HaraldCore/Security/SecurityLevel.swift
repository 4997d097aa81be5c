/// How well a link is protected: the LE Security Mode 1 levels (Core spec Vol 3 Part C §10.2.1).
///
/// Ordered, so `link >= required` asks whether a link is good enough for an attribute.
public enum SecurityLevel: Int, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Level 1: no encryption, no authentication.
    case none = 1
    /// Level 2: encrypted with an unauthenticated key (Just Works pairing).
    case encrypted = 2
    /// Level 3: encrypted with an authenticated key (passkey or numeric comparison, legacy or
    /// LE Secure Connections).
    case authenticated = 3
    /// Level 4: encrypted with an authenticated LE Secure Connections key of 128 bits.
    case authenticatedSecureConnections = 4

    /// Orders by the LE security mode 1 level number: a higher level meets every lower one's needs.
    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The level in words: `none`, `encrypted`, `authenticated` or
    /// `authenticated (LE Secure Connections)`.
    public var description: String {
        switch self {
        case .none: "none"
        case .encrypted: "encrypted"
        case .authenticated: "authenticated"
        case .authenticatedSecureConnections: "authenticated (LE Secure Connections)"
        }
    }
}

extension SecurityLevel {
    /// The level a link encrypted with a key from pairing has: level 4 needs an authenticated
    /// LE Secure Connections key of 16 bytes, level 3 an authenticated key of 16 bytes, level 2
    /// the rest. A key shorter than 16 bytes never counts as authenticated, however it was made:
    /// it can be searched offline (the KNOB attack).
    init(keyAuthenticated: Bool, secureConnections: Bool, keySize: Int) {
        switch (keyAuthenticated && keySize >= 16, secureConnections) {
        case (true, true): self = .authenticatedSecureConnections
        case (true, false): self = .authenticated
        default: self = .encrypted
        }
    }
}
