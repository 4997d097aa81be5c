import HaraldCore

/// How a link is secured now.
public struct LinkSecurity: Hashable, Sendable, CustomStringConvertible {
    /// Unencrypted, encrypted, authenticated, authenticated with Secure Connections.
    public var level: SecurityLevel
    /// Whether the keys are kept for the next connection (a bond exists for the peer).
    public var isBonded: Bool
    /// The encryption key size in octets (7…16), when the link is encrypted and the backend knows.
    public var keySize: Int?

    /// A link's security; `keySize` in octets (7…16) when known.
    public init(level: SecurityLevel, isBonded: Bool, keySize: Int? = nil) {
        self.level = level
        self.isBonded = isBonded
        self.keySize = keySize
    }

    /// An unencrypted link with no bond.
    public static let open = LinkSecurity(level: .none, isBonded: false)

    /// The security level, then `bonded` when keys are kept and the key size in bits when known, e.g.
    /// `authenticated (LE Secure Connections), bonded, 128-bit key`.
    public var description: String {
        "\(level)" + (isBonded ? ", bonded" : "") + (keySize.map { ", \($0 * 8)-bit key" } ?? "")
    }
}
