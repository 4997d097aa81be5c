import Crypto
import HaraldCore
import _CryptoExtras

extension SMPCrypto {
    /// The security function `e` (Core spec Vol 3 Part H §2.2.1): AES-128 encryption of one
    /// block, FIPS-197, with the spec's most-significant-octet-first key and data.
    public static func e(_ key: SecretKey128, _ plaintextData: Value128) -> Value128 {
        Value128(unchecked: encryptBlock(key: key.bigEndianOctets, plaintext: plaintextData.bigEndianBytes))
    }

    /// AES-128 of one 16-octet block; key and block in FIPS-197 order (octet 0 first).
    ///
    /// swift-crypto's `Crypto` has only authenticated modes (GCM, ChaChaPoly), no raw block.
    /// `_CryptoExtras` has `AES._CBC`, `AES._CTR` and `AES.permute`, the forward block function
    /// itself; a single block with no chaining is exactly what `e` is (the same as ECB, or CBC
    /// with a zero IV and no padding, without the mode around it), so `permute` it is.
    static func encryptBlock(key: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        var block = plaintext
        do {
            try AES.permute(&block, key: SymmetricKey(data: key))
        } catch {
            // It throws only for a key or block that is not 16 octets, which callers never pass.
            preconditionFailure("AES-128 needs a 16-octet key and block")
        }
        return block
    }
}
