import Crypto
import Foundation
import _CryptoExtras

/// The 16-byte secret a Mi Band shares with its phone, and the one cipher operation the auth
/// handshake needs: AES-128 of one 16-byte block (ECB, no padding).
public struct MiBandKey: Hashable, Sendable, CustomStringConvertible {
    /// The key's bytes. Keep them out of logs.
    public let bytes: [UInt8]

    /// "0123456789@ABCDE": the key Gadgetbridge and creotiv's library install by default.
    public static let `default` = MiBandKey(unchecked: Array("0123456789@ABCDE".utf8))

    /// A key from 16 bytes; nil for any other length.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A key from 32 hex digits (spaces and colons allowed); nil otherwise.
    public init?(hex: String) {
        let digits = hex.filter { !$0.isWhitespace && $0 != ":" }
        guard digits.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self.bytes = bytes
    }

    private init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// AES-128-ECB encryption of one 16-byte block under this key (what the band expects as the
    /// answer to its challenge). Throws ``MiBandError/invalidChallenge(_:)`` for other lengths.
    public func encrypt(block: [UInt8]) throws(MiBandError) -> [UInt8] {
        guard block.count == 16 else { throw MiBandError.invalidChallenge(block.count) }
        var output = block
        do {
            // One AES block permutation is exactly ECB on a single block.
            try AES.permute(&output, key: SymmetricKey(data: bytes))
        } catch {
            throw MiBandError.invalidChallenge(block.count)
        }
        return output
    }

    /// Never the key itself.
    public var description: String { self == .default ? "MiBandKey(default)" : "MiBandKey(16 bytes)" }
}
