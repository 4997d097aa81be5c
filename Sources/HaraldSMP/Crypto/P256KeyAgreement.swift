import Crypto
import Foundation
import HaraldCodec

/// Why a P-256 key was refused.
public enum P256KeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The public key was not 64 octets (X and Y, 32 each).
    case wrongLength(Int)
    /// The coordinates are not a point of P-256: off the curve, or a coordinate not below the
    /// field prime. Pairing must fail (DHKey Check Failed) before the key is used.
    case notOnCurve
    /// The peer sent back our own public key.
    case sameAsOwnKey
    /// The private key was not a scalar in 1…n-1.
    case invalidPrivateKey

    /// Why the key was refused, e.g. `a P-256 public key has 64 octets, not 63`.
    public var description: String {
        switch self {
        case .wrongLength(let count): "a P-256 public key has 64 octets, not \(count)"
        case .notOnCurve: "the public key is not a point on P-256"
        case .sameAsOwnKey: "the peer's public key is our own"
        case .invalidPrivateKey: "the private key is not a P-256 scalar"
        }
    }
}

/// A P-256 public key as LE Secure Connections exchanges it (Pairing Public Key PDU), always a
/// point on the curve: every initializer checks that before it returns.
public struct P256PublicKey: Hashable, Sendable, CustomStringConvertible {
    /// The X coordinate (`PKax`, `PKbx`: the `U` and `V` of `f4` and `g2`).
    public let x: Value256
    /// The Y coordinate.
    public let y: Value256

    /// A key from its coordinates, most significant octet first; throws
    /// ``P256KeyError/notOnCurve`` unless they are a point of P-256.
    public init(x: Value256, y: Value256) throws(P256KeyError) {
        // swift-crypto's raw representation is X || Y big-endian, and making the key refuses a
        // coordinate not below p and a point off the curve (BoringSSL's
        // EC_KEY_set_public_key_affine_coordinates on Linux, CryptoKit on Apple). The tests
        // check both refusals on Linux.
        _ = try Self.agreementKey(x: x, y: y)
        self.x = x
        self.y = y
    }

    /// swift-crypto's key for these coordinates, made (and checked) again whenever it is needed:
    /// swift-crypto's key types are not `Sendable`, this type is.
    var agreementKey: P256.KeyAgreement.PublicKey {
        get throws(P256KeyError) { try Self.agreementKey(x: x, y: y) }
    }

    private static func agreementKey(x: Value256, y: Value256) throws(P256KeyError) -> P256.KeyAgreement.PublicKey {
        do {
            return try P256.KeyAgreement.PublicKey(rawRepresentation: x.bigEndianBytes + y.bigEndianBytes)
        } catch {
            throw .notOnCurve
        }
    }

    /// A key from the 64 octets of a Pairing Public Key PDU, as sent: X then Y, each least
    /// significant octet first.
    public init(littleEndianBytes bytes: [UInt8]) throws(P256KeyError) {
        guard bytes.count == 64 else { throw .wrongLength(bytes.count) }
        try self.init(x: Value256(unchecked: bytes[0..<32].reversed()), y: Value256(unchecked: bytes[32..<64].reversed()))
    }

    /// The 64 octets a Pairing Public Key PDU carries: X then Y, each least significant first.
    public var littleEndianBytes: [UInt8] { x.littleEndianBytes + y.littleEndianBytes }

    /// True for the public half of the spec's debug key pair: a pairing that uses it is not
    /// secure (anyone can compute its DHKey).
    public var isDebugKey: Bool { self == P256KeyPair.debug.publicKey }

    /// The start of X, enough to tell keys apart; the key is public.
    public var description: String { "P256PublicKey(x: \(Hex.encode(x.bigEndianBytes.prefix(4)))…)" }
}

/// One side's P-256 key pair for one LE Secure Connections pairing (Core spec Vol 3 Part H
/// §2.3.5.6.1). Make a fresh one for every pairing.
///
/// The private key never shows in descriptions, logs or dumps.
public struct P256KeyPair: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The private scalar, 32 octets most significant first. Kept as octets rather than
    /// swift-crypto's key, which is not `Sendable`.
    private let privateKeyOctets: [UInt8]
    /// The public key to send in the Pairing Public Key PDU.
    public let publicKey: P256PublicKey

    /// A new random key pair.
    public init() {
        self.init(validated: P256.KeyAgreement.PrivateKey())
    }

    /// The key pair of a private key given as 32 octets, most significant first (for the
    /// spec's sample data and the debug key; a real pairing uses ``init()``).
    public init(privateKeyBigEndianBytes bytes: [UInt8]) throws(P256KeyError) {
        let privateKey: P256.KeyAgreement.PrivateKey
        do {
            privateKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: bytes)
        } catch {
            throw .invalidPrivateKey
        }
        self.init(validated: privateKey)
    }

    private init(validated privateKey: P256.KeyAgreement.PrivateKey) {
        privateKeyOctets = [UInt8](privateKey.rawRepresentation)
        let raw = [UInt8](privateKey.publicKey.rawRepresentation)
        // A key swift-crypto derived is on the curve; the check cannot fail.
        guard let publicKey = try? P256PublicKey(x: Value256(unchecked: Array(raw[0..<32])), y: Value256(unchecked: Array(raw[32..<64])))
        else { preconditionFailure("swift-crypto derived a public key off the curve") }
        self.publicKey = publicKey
    }

    /// The DHKey with a peer: the X coordinate of our private key times its public key.
    /// Throws ``P256KeyError/sameAsOwnKey`` for a peer that sent our own key back.
    public func dhKey(with peer: P256PublicKey) throws(P256KeyError) -> DHKey {
        guard peer != publicKey else { throw .sameAsOwnKey }
        let peerKey = try peer.agreementKey
        guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKeyOctets) else {
            preconditionFailure("the private key was a P-256 scalar when this pair was made")
        }
        let secret: SharedSecret
        do {
            secret = try privateKey.sharedSecretFromKeyAgreement(with: peerKey)
        } catch {
            // Not expected for a checked point; refuse the peer's key rather than trap on it.
            throw .notOnCurve
        }
        // swift-crypto's shared secret is the X coordinate, 32 octets, most significant first.
        guard let key = secret.withUnsafeBytes({ DHKey(bigEndianBytes: Array($0)) }) else {
            preconditionFailure("a P-256 shared secret has 32 octets")
        }
        return key
    }

    /// The debug key pair of Core spec Vol 3 Part H §2.3.5.6.1: a device in debug mode uses it so
    /// that an air sniffer can decrypt the link. Never for a real pairing.
    public static let debug: P256KeyPair = {
        let privateKey: [UInt8] = [
            0x3F, 0x49, 0xF6, 0xD4, 0xA3, 0xC5, 0x5F, 0x38, 0x74, 0xC9, 0xB3, 0xE3, 0xD2, 0x10, 0x3F, 0x50,
            0x4A, 0xFF, 0x60, 0x7B, 0xEB, 0x40, 0xB7, 0x99, 0x58, 0x99, 0xB8, 0xA6, 0xCD, 0x3C, 0x1A, 0xBD,
        ]
        guard let pair = try? P256KeyPair(privateKeyBigEndianBytes: privateKey) else {
            preconditionFailure("the debug private key is a P-256 scalar")
        }
        return pair
    }()

    /// The public key only; never the private key.
    public var description: String { "P256KeyPair(public: \(publicKey))" }
    /// The same text as ``description``: the public key only.
    public var debugDescription: String { description }
    /// The public key as the only child, so `dump` and debuggers never show the private key.
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
