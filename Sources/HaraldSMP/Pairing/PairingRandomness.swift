import HaraldCore

/// Where a pairing procedure gets its random values: nonces, its P-256 key pair, a passkey to
/// display, and the legacy LTK, EDIV and Rand it distributes.
///
/// ``system`` draws everything from the system's cryptographically secure generator and a fresh
/// key pair per pairing; tests inject fixed values (such as the spec's sample data).
public struct PairingRandomness: Sendable {
    /// A fresh 128-bit nonce (Na, Mrand…).
    public var nonce: @Sendable () -> Value128
    /// The key pair for one LE Secure Connections pairing.
    public var keyPair: @Sendable () -> P256KeyPair
    /// A six-digit passkey, 0…999999, for this device to display.
    public var passkey: @Sendable () -> UInt32
    /// A 128-bit key: the LTK an LE legacy pairing distributes.
    public var key: @Sendable () -> SecretKey128
    /// 64 random bits: the Rand (and, truncated, the EDIV) of a distributed legacy LTK.
    public var word: @Sendable () -> UInt64

    /// A source from its functions (fixed values in tests, the system's random generator otherwise).
    public init(
        nonce: @escaping @Sendable () -> Value128, keyPair: @escaping @Sendable () -> P256KeyPair,
        passkey: @escaping @Sendable () -> UInt32, key: @escaping @Sendable () -> SecretKey128,
        word: @escaping @Sendable () -> UInt64
    ) {
        self.nonce = nonce
        self.keyPair = keyPair
        self.passkey = passkey
        self.key = key
        self.word = word
    }

    /// Everything from the system's cryptographically secure generator.
    public static let system = PairingRandomness(
        nonce: { Value128.random() },
        keyPair: { P256KeyPair() },
        passkey: {
            var generator = SystemRandomNumberGenerator()
            return UInt32.random(in: 0...999_999, using: &generator)
        },
        key: {
            // Sixteen octets always make a key.
            SecretKey128(littleEndianBytes: Value128.random().littleEndianBytes)!
        },
        word: {
            var generator = SystemRandomNumberGenerator()
            return generator.next()
        })
}

/// The keys this device distributes in phase 3 when the peer agrees to receive them.
public struct LocalPairingKeys: Sendable {
    /// Our IRK (Identity Information), sent with ``identityAddress`` (IdKey).
    public var identityResolvingKey: IdentityResolvingKey
    /// Our identity address, public or static random (Identity Address Information).
    public var identityAddress: BluetoothAddress
    /// Our CSRK (Signing Information, SignKey), if we sign writes.
    public var signatureKey: ConnectionSignatureResolvingKey?

    /// The keys this device distributes: IRK and identity address, and a CSRK if any.
    public init(
        identityResolvingKey: IdentityResolvingKey, identityAddress: BluetoothAddress,
        signatureKey: ConnectionSignatureResolvingKey? = nil
    ) {
        self.identityResolvingKey = identityResolvingKey
        self.identityAddress = identityAddress
        self.signatureKey = signatureKey
    }
}

extension SecretKey128 {
    /// The key cut to `size` octets (7…16): its most significant octets zeroed, as a negotiated
    /// key size shorter than 16 requires (Core spec Vol 3 Part H §2.3.4).
    func masked(toSize size: Int) -> SecretKey128 {
        guard size < 16 else { return self }
        let octets = withUnsafeKeyBytes { bytes in bytes.enumerated().map { $0.offset < size ? $0.element : 0 } }
        return SecretKey128(littleEndianBytes: octets)!
    }
}
