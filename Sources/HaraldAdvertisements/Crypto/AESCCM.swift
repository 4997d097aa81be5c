import Crypto
import _CryptoExtras

/// AES-CCM (counter mode with CBC-MAC, RFC 3610 and NIST SP 800-38C) with a 128-bit key: the
/// authenticated encryption BTHome uses for encrypted advertisements (a 13-octet nonce and a
/// 4-octet MIC).
///
/// Why it is written here: swift-crypto offers AES only as AES-GCM in `Crypto`, and in
/// `_CryptoExtras` as CBC, CTR and the bare block function (`AES.permute`); it has no CCM. CCM is
/// small enough to build from the block function: a CBC-MAC over a first block naming the
/// lengths, the associated data and the message, and a counter-mode keystream whose block 0
/// encrypts that MAC. Both halves run the same AES-128 block that HaraldSMP uses.
public enum AESCCM {
    /// Why sealing or opening failed.
    public enum Failure: Error, Hashable, Sendable {
        /// The key is not 16 octets.
        case invalidKeyLength(Int)
        /// The nonce is not 7…13 octets (the length field then takes the other 8…2 octets of
        /// a block).
        case invalidNonceLength(Int)
        /// The tag is not 4, 6, 8, 10, 12, 14 or 16 octets.
        case invalidTagLength(Int)
        /// The message is too long for the length field that the nonce leaves.
        case messageTooLong(Int)
        /// The tag does not match: the key, the nonce or the bytes are wrong (or were altered).
        case authenticationFailed
    }

    /// Encrypts `plaintext` and computes its tag of `tagLength` octets; `associatedData` is
    /// authenticated but not encrypted.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = [], tagLength: Int
    ) throws(Failure) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let params = try Parameters(key: key, nonce: nonce, tagLength: tagLength, messageLength: plaintext.count)
        let mac = params.cbcMAC(message: plaintext, associatedData: associatedData)
        let ciphertext = params.applyKeystream(to: plaintext)
        let tag = zip(mac, params.keystreamBlock(counter: 0)).map { $0 ^ $1 }
        return (ciphertext, Array(tag.prefix(tagLength)))
    }

    /// Decrypts `ciphertext` and checks `tag` (its length is the tag length); throws
    /// ``Failure/authenticationFailed`` and returns nothing when the tag does not match.
    public static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []
    ) throws(Failure) -> [UInt8] {
        let params = try Parameters(key: key, nonce: nonce, tagLength: tag.count, messageLength: ciphertext.count)
        let plaintext = params.applyKeystream(to: ciphertext)
        let mac = params.cbcMAC(message: plaintext, associatedData: associatedData)
        let expected = zip(mac, params.keystreamBlock(counter: 0)).map { $0 ^ $1 }.prefix(tag.count)
        // Compare every octet whatever the first difference, so timing says nothing of where it is.
        var difference: UInt8 = 0
        for (lhs, rhs) in zip(expected, tag) { difference |= lhs ^ rhs }
        guard difference == 0 else { throw .authenticationFailed }
        return plaintext
    }

    /// The checked inputs of one operation and the block operations over them.
    private struct Parameters {
        let key: SymmetricKey
        let nonce: [UInt8]
        let tagLength: Int
        /// Octets of the message-length field (L in RFC 3610): 15 minus the nonce length.
        let lengthFieldSize: Int

        init(key: [UInt8], nonce: [UInt8], tagLength: Int, messageLength: Int) throws(Failure) {
            guard key.count == 16 else { throw .invalidKeyLength(key.count) }
            guard (7...13).contains(nonce.count) else { throw .invalidNonceLength(nonce.count) }
            guard (4...16).contains(tagLength), tagLength.isMultiple(of: 2) else { throw .invalidTagLength(tagLength) }
            lengthFieldSize = 15 - nonce.count
            // The length field holds the message length; with L ≥ 8 any Int fits.
            if lengthFieldSize < 8, messageLength >= 1 << (8 * lengthFieldSize) { throw .messageTooLong(messageLength) }
            self.key = SymmetricKey(data: key)
            self.nonce = nonce
            self.tagLength = tagLength
        }

        func encrypt(_ block: [UInt8]) -> [UInt8] {
            var block = block
            // `permute` throws only for a key or block that is not 16 octets; both are checked.
            try? AES.permute(&block, key: key)
            return block
        }

        /// Block A_i of the counter mode: flags (L − 1), the nonce, the counter in L octets.
        func keystreamBlock(counter: Int) -> [UInt8] {
            var block = [UInt8(lengthFieldSize - 1)] + nonce
            for index in (0..<lengthFieldSize).reversed() {
                block.append(index < 8 ? UInt8(truncatingIfNeeded: counter >> (8 * index)) : 0)
            }
            return encrypt(block)
        }

        /// XORs `bytes` with the keystream blocks S_1, S_2, … (encryption and decryption alike).
        func applyKeystream(to bytes: [UInt8]) -> [UInt8] {
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var counter = 1
            var start = 0
            while start < bytes.count {
                let stream = keystreamBlock(counter: counter)
                for (offset, byte) in bytes[start..<min(start + 16, bytes.count)].enumerated() {
                    output.append(byte ^ stream[offset])
                }
                start += 16
                counter += 1
            }
            return output
        }

        /// The CBC-MAC (T before encryption) over B_0, the encoded associated data and the message.
        func cbcMAC(message: [UInt8], associatedData: [UInt8]) -> [UInt8] {
            let flags = (associatedData.isEmpty ? 0 : 0x40) | ((tagLength - 2) / 2) << 3 | (lengthFieldSize - 1)
            var first = [UInt8(flags)] + nonce
            for index in (0..<lengthFieldSize).reversed() {
                first.append(index < 8 ? UInt8(truncatingIfNeeded: message.count >> (8 * index)) : 0)
            }
            var input: [UInt8] = []
            if !associatedData.isEmpty {
                let count = associatedData.count
                if count < 0xFF00 {
                    input += [UInt8(count >> 8), UInt8(count & 0xFF)]
                } else {
                    input += [0xFF, 0xFE] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
                }
                input += associatedData
                input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
            }
            input += message
            input += [UInt8](repeating: 0, count: (16 - input.count % 16) % 16)
            var state = encrypt(first)
            var start = 0
            while start < input.count {
                for offset in 0..<16 { state[offset] ^= input[start + offset] }
                state = encrypt(state)
                start += 16
            }
            return state
        }
    }
}
