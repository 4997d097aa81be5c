/// AES-128 encryption of single 16-byte blocks (ECB, no padding), written from FIPS-197: what
/// the simulated band needs to check the answer to its auth challenge (protocols.md B.2). The
/// band has its own cipher so that it does not check the Mi Band kit against the kit's own
/// crypto.
struct AES128: Sendable {
    /// The 11 round keys, 16 bytes each, in state order (column by column).
    private let roundKeys: [UInt8]

    /// A cipher for `key`; nil unless it is 16 bytes.
    init?(key: [UInt8]) {
        guard key.count == 16 else { return nil }
        var words = key
        words.reserveCapacity(176)
        let roundConstants: [UInt8] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36]
        for word in 4..<44 {
            var temp = Array(words[(word - 1) * 4..<word * 4])
            if word % 4 == 0 {
                temp = [temp[1], temp[2], temp[3], temp[0]].map { Self.substitution[Int($0)] }
                temp[0] ^= roundConstants[word / 4 - 1]
            }
            for byte in 0..<4 { words.append(words[(word - 4) * 4 + byte] ^ temp[byte]) }
        }
        roundKeys = words
    }

    /// The encryption of one 16-byte block; nil for another length.
    func encrypt(block: [UInt8]) -> [UInt8]? {
        guard block.count == 16 else { return nil }
        var state = block
        addRoundKey(&state, round: 0)
        for round in 1...10 {
            for index in 0..<16 { state[index] = Self.substitution[Int(state[index])] }
            // Row r (bytes r, r+4, r+8, r+12) turns left by r.
            let shifted = state
            for column in 0..<4 {
                for row in 1..<4 { state[row + 4 * column] = shifted[row + 4 * ((column + row) % 4)] }
            }
            if round < 10 {
                for column in 0..<4 {
                    let a = Array(state[4 * column..<4 * column + 4])
                    state[4 * column] = Self.double(a[0]) ^ Self.triple(a[1]) ^ a[2] ^ a[3]
                    state[4 * column + 1] = a[0] ^ Self.double(a[1]) ^ Self.triple(a[2]) ^ a[3]
                    state[4 * column + 2] = a[0] ^ a[1] ^ Self.double(a[2]) ^ Self.triple(a[3])
                    state[4 * column + 3] = Self.triple(a[0]) ^ a[1] ^ a[2] ^ Self.double(a[3])
                }
            }
            addRoundKey(&state, round: round)
        }
        return state
    }

    private func addRoundKey(_ state: inout [UInt8], round: Int) {
        for index in 0..<16 { state[index] ^= roundKeys[16 * round + index] }
    }

    /// Multiplication by x (that is, 2) in GF(2⁸) modulo x⁸ + x⁴ + x³ + x + 1.
    private static func double(_ value: UInt8) -> UInt8 { (value << 1) ^ (value & 0x80 != 0 ? 0x1B : 0) }
    private static func triple(_ value: UInt8) -> UInt8 { double(value) ^ value }

    /// The S-box, computed as FIPS-197 §5.1.1 defines it: the multiplicative inverse in GF(2⁸)
    /// (0 for 0), then the affine transformation with 0x63.
    static let substitution: [UInt8] = {
        func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
            var (a, b, product) = (a, b, UInt8(0))
            while b != 0 {
                if b & 1 != 0 { product ^= a }
                a = double(a)
                b >>= 1
            }
            return product
        }
        func rotateLeft(_ value: UInt8, _ count: UInt8) -> UInt8 { (value << count) | (value >> (8 - count)) }
        return (0...255).map { (value: Int) -> UInt8 in
            let x = UInt8(value)
            // x²⁵⁴ is the inverse of x (and 0 for 0).
            var inverse: UInt8 = 1
            for _ in 0..<254 { inverse = multiply(inverse, x) }
            if x == 0 { inverse = 0 }
            return inverse ^ rotateLeft(inverse, 1) ^ rotateLeft(inverse, 2) ^ rotateLeft(inverse, 3) ^ rotateLeft(inverse, 4) ^ 0x63
        }
    }()
}
