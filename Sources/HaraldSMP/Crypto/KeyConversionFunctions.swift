import HaraldCore

/// A keyID of `h6` (Core spec Vol 3 Part H §2.4.2.4, §2.4.2.5): four ASCII characters, used
/// as written (not reversed).
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
    /// The four octets, first character most significant.
    public let bigEndianBytes: [UInt8]

    private init(_ text: StaticString) {
        bigEndianBytes = text.withUTF8Buffer { Array($0) }
        precondition(bigEndianBytes.count == 4, "a keyID has four characters")
    }

    /// "lebr": LTK to BR/EDR link key.
    public static let lebr = KeyID("lebr")
    /// "brle": BR/EDR link key to LTK.
    public static let brle = KeyID("brle")
    /// "tmp1": the intermediate key from an LTK, without h7 (CT2 = 0).
    public static let tmp1 = KeyID("tmp1")
    /// "tmp2": the intermediate key from a link key, without h7 (CT2 = 0).
    public static let tmp2 = KeyID("tmp2")

    /// The four characters as written, e.g. `tmp1`.
    public var description: String { String(decoding: bigEndianBytes, as: UTF8.self) }
}

extension SMPCrypto {
    /// The link key conversion function `h6` (Core spec Vol 3 Part H §2.2.10): AES-CMAC keyed
    /// with `w` over `keyID`.
    public static func h6(w: SecretKey128, keyID: KeyID) -> SecretKey128 {
        SecretKey128(bigEndianOctets: cmac(key: w.bigEndianOctets, message: keyID.bigEndianBytes))
    }

    /// The link key conversion function `h7` (Core spec Vol 3 Part H §2.2.11): AES-CMAC keyed
    /// with `salt` over `w`.
    public static func h7(salt: Value128, w: SecretKey128) -> SecretKey128 {
        SecretKey128(bigEndianOctets: cmac(key: salt.bigEndianBytes, message: w.bigEndianOctets))
    }

    /// The SALT of `h7` for LTK to link key: "tmp1" in the low octets.
    public static let saltTmp1 = Value128(unchecked: [UInt8](repeating: 0, count: 12) + Array("tmp1".utf8))
    /// The SALT of `h7` for link key to LTK: "tmp2" in the low octets.
    public static let saltTmp2 = Value128(unchecked: [UInt8](repeating: 0, count: 12) + Array("tmp2".utf8))

    /// The BR/EDR link key derived from an LE Secure Connections LTK (cross-transport key
    /// derivation, Core spec Vol 3 Part H §2.4.2.4). `ct2` is true when both sides set the CT2
    /// bit (then the intermediate key comes from `h7`, else from `h6`).
    public static func linkKey(fromLTK ltk: SecretKey128, ct2: Bool) -> SecretKey128 {
        let ilk = ct2 ? h7(salt: saltTmp1, w: ltk) : h6(w: ltk, keyID: .tmp1)
        return h6(w: ilk, keyID: .lebr)
    }

    /// The LE LTK derived from a BR/EDR link key (cross-transport key derivation, Core spec
    /// Vol 3 Part H §2.4.2.5). `ct2` as in ``linkKey(fromLTK:ct2:)``.
    public static func ltk(fromLinkKey linkKey: SecretKey128, ct2: Bool) -> SecretKey128 {
        let ilk = ct2 ? h7(salt: saltTmp2, w: linkKey) : h6(w: linkKey, keyID: .tmp2)
        return h6(w: ilk, keyID: .brle)
    }
}
