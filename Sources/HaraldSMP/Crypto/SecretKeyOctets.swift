import HaraldCore

/// Keys with fixed meanings in the pairing procedures.
extension SecretKey128 {
    /// All-zero: legacy Just Works' TK, and `f6`'s `r` for Just Works and Numeric Comparison.
    public static let zero = SecretKey128(bigEndianOctets: [UInt8](repeating: 0, count: 16))

    /// The passkey (0…999999) as a 128-bit number: legacy Passkey Entry's TK and `f6`'s `r`
    /// in LE Secure Connections Passkey Entry. Nil above 999999.
    public init?(passkey: UInt32) {
        guard passkey <= 999_999 else { return nil }
        var octets = [UInt8](repeating: 0, count: 16)
        for index in 0..<4 { octets[15 - index] = UInt8(truncatingIfNeeded: passkey >> (8 * index)) }
        self.init(bigEndianOctets: octets)
    }

    /// A key from 16 octets, most significant first. Inside the toolbox only.
    init(bigEndianOctets octets: [UInt8]) {
        precondition(octets.count == 16, "a 128-bit key has 16 octets")
        self.init(littleEndianBytes: octets.reversed())!
    }

    /// The 16 octets most significant first: FIPS-197's key order, `key[0]` first. Inside the
    /// toolbox only, so the bits never reach a caller by this road.
    var bigEndianOctets: [UInt8] { withUnsafeKeyBytes { $0.reversed() } }
}
