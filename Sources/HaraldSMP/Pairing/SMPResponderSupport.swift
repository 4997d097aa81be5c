import HaraldCore

/// The keys a responder (peripheral) can hand out in phase 3 of pairing (Core spec Vol 3 Part H
/// §3.6). A key the responder does not have is never offered in its Pairing Response.
public struct SMPResponderLocalKeys: Sendable, CustomStringConvertible {
    /// This device's IRK and identity address (Identity Information + Identity Address
    /// Information, the IdKey bit); nil offers no identity.
    public var identity: LocalIdentity?
    /// This device's CSRK (Signing Information, the SignKey bit); nil offers none.
    public var signatureKey: ConnectionSignatureResolvingKey?
    /// Whether LE legacy pairing generates and distributes a fresh LTK with its EDIV and Rand
    /// (Encryption Information + Central Identification, the EncKey bit). Secure Connections never
    /// does: both sides derive the LTK.
    public var distributesLegacyLongTermKey: Bool

    /// Keys from their parts.
    public init(
        identity: LocalIdentity? = nil, signatureKey: ConnectionSignatureResolvingKey? = nil,
        distributesLegacyLongTermKey: Bool = true
    ) {
        self.identity = identity
        self.signatureKey = signatureKey
        self.distributesLegacyLongTermKey = distributesLegacyLongTermKey
    }

    /// The Responder Key Distribution bits these keys can honour.
    var offered: KeyDistribution {
        var keys: KeyDistribution = []
        if distributesLegacyLongTermKey { keys.insert(.encKey) }
        if identity != nil { keys.insert(.idKey) }
        if signatureKey != nil { keys.insert(.signKey) }
        return keys
    }

    /// Names only: which keys are present, never their bits.
    public var description: String {
        var parts: [String] = []
        if let identity { parts.append("identity \(identity.address) with IRK") }
        if signatureKey != nil { parts.append("CSRK") }
        if distributesLegacyLongTermKey { parts.append("legacy LTK") }
        return "SMPResponderLocalKeys(\(parts.isEmpty ? "none" : parts.joined(separator: ", ")))"
    }
}

extension SMPResponder {
    /// Where the responder's random values come from: nonces, Srand, the legacy LTK, EDIV and
    /// Rand, and a displayed passkey. Tests inject fixed values to reproduce the spec's sample data.
    public struct RandomSource: Sendable {
        /// Returns `count` random octets.
        public var bytes: @Sendable (_ count: Int) -> [UInt8]

        /// A source that returns `count` random bytes per call.
        public init(bytes: @escaping @Sendable (_ count: Int) -> [UInt8]) { self.bytes = bytes }

        /// The system's cryptographically secure generator.
        public static let system = RandomSource { count in
            var generator = SystemRandomNumberGenerator()
            return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        }

        func value128() -> Value128 {
            // Sixteen octets always make a value.
            Value128(littleEndianBytes: bytes(16))!
        }

        func key128() -> SecretKey128 {
            // Sixteen octets always make a key.
            SecretKey128(littleEndianBytes: bytes(16))!
        }

        func integer<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) -> T {
            bytes(T.bitWidth / 8).reversed().reduce(T.zero) { ($0 << 8) | T($1) }
        }

        /// A passkey 0…999999 without modulo bias.
        func passkey() -> UInt32 {
            let limit: UInt32 = 4_294_000_000  // the largest multiple of 10^6 that fits
            while true {
                let candidate = integer(UInt32.self)
                if candidate < limit { return candidate % 1_000_000 }
            }
        }
    }
}

/// Small helpers of the responder, kept in one namespace.
enum SMPResponderSupport {
    /// The key cut to `size` octets (7…16): its most significant 16 − `size` octets zeroed, as
    /// the spec uses a key negotiated shorter than 128 bits.
    static func shortened(_ key: SecretKey128, to size: Int) -> SecretKey128 {
        guard size < 16 else { return key }
        return key.withUnsafeKeyBytes { bytes in
            var octets = bytes
            for index in max(size, 0)..<16 { octets[index] = 0 }
            // Still sixteen octets.
            return SecretKey128(littleEndianBytes: octets)!
        }
    }
}
