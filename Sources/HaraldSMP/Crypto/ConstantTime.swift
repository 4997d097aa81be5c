/// Equality of secret-dependent values without an early exit: the time it takes depends on the
/// lengths only, never on where the first differing octet is. Every comparison of a confirm value
/// (Mconfirm/Sconfirm, Cai/Cbi, Cb), a DHKey check (Ea/Eb) or a public key coordinate in the
/// pairing procedures goes through `equal(_:_:)`, so a peer timing the answers learns nothing
/// about how much of a guessed value was right.
public enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same octets. Different lengths are unequal (lengths
    /// are public: every value compared here has a fixed size on the wire).
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// `equal(_:_:)` for two 128-bit values.
    public static func equal(_ lhs: Value128, _ rhs: Value128) -> Bool { equal(lhs.bigEndianBytes, rhs.bigEndianBytes) }

    /// `equal(_:_:)` for two 256-bit values.
    public static func equal(_ lhs: Value256, _ rhs: Value256) -> Bool { equal(lhs.bigEndianBytes, rhs.bigEndianBytes) }
}
