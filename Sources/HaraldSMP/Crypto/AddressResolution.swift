import HaraldCore

extension SMPCrypto {
    /// The random address hash function `ah` (Core spec Vol 3 Part H §2.2.2): the low 24 bits
    /// of `e(k, r')`, where `r'` is `r` padded with 104 zero bits. Uses the low 24 bits of `r`;
    /// the result is below 2^24.
    public static func ah(_ k: SecretKey128, _ r: UInt32) -> UInt32 {
        var rPrime = [UInt8](repeating: 0, count: 16)
        rPrime[13] = UInt8(truncatingIfNeeded: r >> 16)
        rPrime[14] = UInt8(truncatingIfNeeded: r >> 8)
        rPrime[15] = UInt8(truncatingIfNeeded: r)
        let block = encryptBlock(key: k.bigEndianOctets, plaintext: rPrime)
        return block[13..<16].reduce(0) { ($0 << 8) | UInt32($1) }
    }
}

/// Resolving private addresses with an IRK.
extension IdentityResolvingKey {
    /// True when `address` is a resolvable private address made with this key: its hash (low 24
    /// bits) is `ah(IRK, prand)` of its prand (high 24 bits) (Core spec Vol 3 Part H §2.2.2,
    /// Vol 6 Part B §1.3.2.3). False for any other kind of address, and always false for the
    /// all-zero key, which is no IRK.
    public func resolves(_ address: BluetoothAddress) -> Bool {
        guard address.isResolvablePrivate, !isAllZero else { return false }
        let prand = UInt32(truncatingIfNeeded: address.value >> 24)
        let hash = UInt32(truncatingIfNeeded: address.value & 0xFF_FFFF)
        return SMPCrypto.ah(key, prand) == hash
    }

    /// The resolvable private address for `prand`: `prand || ah(IRK, prand)`. Nil unless prand
    /// is 24 bits whose top two are `01` and whose 22 random bits are neither all 0 nor all 1.
    public func resolvablePrivateAddress(prand: UInt32) -> BluetoothAddress? {
        guard prand >> 22 == 0b01 else { return nil }
        let randomPart = prand & 0x3F_FFFF
        guard randomPart != 0, randomPart != 0x3F_FFFF else { return nil }
        let value = UInt64(prand) << 24 | UInt64(SMPCrypto.ah(key, prand))
        return BluetoothAddress(value: value, kind: .random)
    }

    /// A new resolvable private address with a prand from `generator` (use a cryptographically
    /// secure one).
    public func resolvablePrivateAddress<G: RandomNumberGenerator>(using generator: inout G) -> BluetoothAddress {
        while true {
            let prand = 0x40_0000 | UInt32.random(in: 0...0x3F_FFFF, using: &generator)
            if let address = resolvablePrivateAddress(prand: prand) { return address }
        }
    }

    /// A new resolvable private address from the system's cryptographically secure generator.
    public func resolvablePrivateAddress() -> BluetoothAddress {
        // `UInt32.random(in:)` draws from `SystemRandomNumberGenerator`. Not through
        // `resolvablePrivateAddress(using:)` with a local one: that generator has no stored
        // properties, so concurrent calls pass the same address `inout`, which ThreadSanitizer
        // reports as an access race although nothing is shared.
        while true {
            let prand = 0x40_0000 | UInt32.random(in: 0...0x3F_FFFF)
            if let address = resolvablePrivateAddress(prand: prand) { return address }
        }
    }
}
