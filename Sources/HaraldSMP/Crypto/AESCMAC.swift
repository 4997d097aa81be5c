import HaraldCore

extension SMPCrypto {
    /// AES-CMAC (RFC 4493, Core spec Vol 3 Part H §2.2.5) of `message` under `key`; the message
    /// is a plain octet string, first octet first, and the MAC comes back most significant
    /// octet first.
    public static func aesCMAC(_ key: SecretKey128, _ message: [UInt8]) -> Value128 {
        Value128(unchecked: cmac(key: key.bigEndianOctets, message: message))
    }

    /// RFC 4493 §2.4 on the block function `encryptBlock`. Key in FIPS-197 order.
    ///
    /// Hand-written: swift-crypto has no CMAC (only HMAC), and CMAC is a few lines over the AES
    /// block function, checked against all four of RFC 4493's examples.
    static func cmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let (k1, k2) = subkeys(key: key)
        let blockCount = max(1, (message.count + 15) / 16)
        let lastIsComplete = !message.isEmpty && message.count % 16 == 0

        let lastStart = (blockCount - 1) * 16
        var last = Array(message[lastStart...])
        if lastIsComplete {
            last = xor(last, k1)
        } else {
            last.append(0x80)
            last += [UInt8](repeating: 0, count: 16 - last.count)
            last = xor(last, k2)
        }

        var x = [UInt8](repeating: 0, count: 16)
        for index in 0..<(blockCount - 1) {
            let start = index * 16
            x = encryptBlock(key: key, plaintext: xor(x, Array(message[start..<start + 16])))
        }
        return encryptBlock(key: key, plaintext: xor(x, last))
    }

    /// RFC 4493 §2.3: K1 and K2 from L = AES(key, 0^128).
    static func subkeys(key: [UInt8]) -> (k1: [UInt8], k2: [UInt8]) {
        let l = encryptBlock(key: key, plaintext: [UInt8](repeating: 0, count: 16))
        let k1 = doubled(l)
        return (k1, doubled(k1))
    }

    /// Multiplication by x in GF(2^128): a left shift by one bit, with Rb = 0x87 folded into the
    /// last octet when the top bit falls off.
    private static func doubled(_ block: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 {
            let carry: UInt8 = index < 15 ? block[index + 1] >> 7 : 0
            result[index] = (block[index] << 1) | carry
        }
        if block[0] & 0x80 != 0 { result[15] ^= 0x87 }
        return result
    }

    /// Octet-wise exclusive or of two blocks of the same length.
    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        zip(a, b).map { $0 ^ $1 }
    }
}
