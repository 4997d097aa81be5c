/// Whether a link is encrypted now (AES-CCM, switched on by the link layers), and with how long
/// a key.
public struct LinkEncryption: Hashable, Sendable {
    /// Whether the link is encrypted.
    public var isEncrypted: Bool
    /// The key size in octets (7…16), when the link is encrypted and the controller said
    /// (Encryption Change v2 carries it).
    public var keySize: Int?

    /// A link's encryption; `keySize` in octets (7…16) when known.
    public init(isEncrypted: Bool, keySize: Int? = nil) {
        self.isEncrypted = isEncrypted
        self.keySize = keySize
    }
}
