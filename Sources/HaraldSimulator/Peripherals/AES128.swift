/// AES-128 block encryption (FIPS-197), one 16-byte block at a time — AES-ECB without padding,
/// which is what the Mi Band 2 authentication handshake computes.
///
/// Why a local implementation: the core modules depend on the standard library and Foundation
/// only (they build for iOS 16 and Linux alike), and neither offers raw AES: CryptoKit and
/// swift-crypto expose AES only as AES-GCM (and, in swift-crypto's underscored `_CryptoExtras`,
/// CBC/CTR and a block permutation), none of which a core module may depend on. The handshake
/// needs a single block per authentication, so a small table-free implementation is enough. It is
/// not constant-time and is meant for the simulator and device kits, not for protecting secrets.
public struct AES128: Sendable {
    private let roundKeys: [UInt8]

    /// A cipher for a 16-byte key (shorter keys are zero-padded, longer ones cut).
    public init(key: [UInt8]) {
        var key = Array(key.prefix(16))
        key += Array(repeating: 0, count: 16 - key.count)
        roundKeys = Self.expand(key)
    }

    /// Encrypts one 16-byte block (shorter input is zero-padded, longer input cut).
    public func encrypt(block: [UInt8]) -> [UInt8] {
        var state = Array(block.prefix(16))
        state += Array(repeating: 0, count: 16 - state.count)
        addRoundKey(&state, round: 0)
        for round in 1...10 {
            for index in 0..<16 { state[index] = Self.sBox(state[index]) }
            Self.shiftRows(&state)
            if round < 10 { Self.mixColumns(&state) }
            addRoundKey(&state, round: round)
        }
        return state
    }

    private func addRoundKey(_ state: inout [UInt8], round: Int) {
        for index in 0..<16 { state[index] ^= roundKeys[round * 16 + index] }
    }

    private static func expand(_ key: [UInt8]) -> [UInt8] {
        var words = key
        var rcon: UInt8 = 1
        while words.count < 176 {
            var temp = Array(words[(words.count - 4)...])
            if words.count % 16 == 0 {
                temp = [sBox(temp[1]) ^ rcon, sBox(temp[2]), sBox(temp[3]), sBox(temp[0])]
                rcon = xtime(rcon)
            }
            for index in 0..<4 { words.append(words[words.count - 16] ^ temp[index]) }
        }
        return words
    }

    /// State is column-major: byte `row + 4 * column`.
    private static func shiftRows(_ state: inout [UInt8]) {
        let copy = state
        for row in 1..<4 {
            for column in 0..<4 { state[row + 4 * column] = copy[row + 4 * ((column + row) % 4)] }
        }
    }

    private static func mixColumns(_ state: inout [UInt8]) {
        for column in 0..<4 {
            let a = Array(state[(4 * column)..<(4 * column + 4)])
            let all = a[0] ^ a[1] ^ a[2] ^ a[3]
            for row in 0..<4 { state[4 * column + row] = a[row] ^ all ^ xtime(a[row] ^ a[(row + 1) % 4]) }
        }
    }

    private static func xtime(_ value: UInt8) -> UInt8 { (value << 1) ^ (value & 0x80 != 0 ? 0x1B : 0) }

    private static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var (a, b, product): (UInt8, UInt8, UInt8) = (a, b, 0)
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a = xtime(a)
            b >>= 1
        }
        return product
    }

    /// The S-box: the multiplicative inverse in GF(2⁸) followed by the affine transform.
    private static func sBox(_ value: UInt8) -> UInt8 { table[Int(value)] }

    private static let table: [UInt8] = (0...255).map { (input: Int) -> UInt8 in
        var inverse: UInt8 = 0
        if input != 0 {
            for candidate in 1...255 where multiply(UInt8(input), UInt8(candidate)) == 1 {
                inverse = UInt8(candidate)
                break
            }
        }
        var result = inverse
        for shift in 1...4 { result ^= (inverse << shift) | (inverse >> (8 - shift)) }
        return result ^ 0x63
    }
}
