/// A 128-bit key that never shows its bits in descriptions, logs or dumps.
///
/// The bytes are reachable only through ``withUnsafeKeyBytes(_:)``, so printing a key, a bond or
/// an error that carries one cannot leak key material by accident. Stored least significant
/// byte first, the order SMP carries keys in.
public struct SecretKey128: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let storage: [UInt8]

    /// A key from 16 bytes, least significant first; nil for any other length.
    public init?(littleEndianBytes bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        storage = bytes
    }

    /// Runs `body` with the 16 key bytes, least significant first.
    public func withUnsafeKeyBytes<Result>(_ body: ([UInt8]) throws -> Result) rethrows -> Result {
        try body(storage)
    }

    /// True when both keys hold the same 16 bytes, compared without an early exit: the time
    /// taken never tells how many leading bytes of a guess were right.
    public static func == (lhs: SecretKey128, rhs: SecretKey128) -> Bool {
        var difference: UInt8 = 0
        for index in 0..<16 { difference |= lhs.storage[index] ^ rhs.storage[index] }
        return difference == 0
    }

    /// Hashes all 16 bytes (SipHash reads every one; nothing stops early).
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }

    /// `<128-bit key>`: never the bits.
    public var description: String { "<128-bit key>" }
    /// `<128-bit key>`, as ``description``: a debugger shows no bits either.
    public var debugDescription: String { description }
    /// No children, so `dump` and debuggers cannot reach the key bytes.
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// The Long Term Key of a bond (SMP): encrypts the link on every reconnection. With legacy
/// pairing it comes with EDIV and Rand, which identify it; LE Secure Connections uses zeros.
public struct LongTermKey: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The key.
    public var key: SecretKey128
    /// The Encrypted Diversifier (0 for LE Secure Connections).
    public var ediv: UInt16
    /// The 64-bit random number that identifies a legacy LTK (0 for LE Secure Connections).
    public var rand: UInt64
    /// The key's size in bytes as negotiated (7…16).
    public var keySize: Int
    /// True when pairing authenticated the peer (passkey or numeric comparison).
    public var isAuthenticated: Bool
    /// True for a key from LE Secure Connections.
    public var isSecureConnections: Bool

    /// An LTK; EDIV and Rand identify a legacy key (0 for LE Secure Connections), `keySize` in octets.
    public init(key: SecretKey128, ediv: UInt16 = 0, rand: UInt64 = 0, keySize: Int = 16, isAuthenticated: Bool, isSecureConnections: Bool) {
        self.key = key
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
        self.isAuthenticated = isAuthenticated
        self.isSecureConnections = isSecureConnections
    }

    /// The security level a link encrypted with this key has.
    public var securityLevel: SecurityLevel {
        SecurityLevel(keyAuthenticated: isAuthenticated, secureConnections: isSecureConnections, keySize: keySize)
    }

    /// Key size and level; never the key, EDIV or Rand.
    public var description: String { "LongTermKey(\(keySize * 8) bits, \(securityLevel))" }
    /// Size and flags; never the key, EDIV or Rand.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["keySize": keySize, "isAuthenticated": isAuthenticated, "isSecureConnections": isSecureConnections],
            displayStyle: .struct)
    }
}

/// The Identity Resolving Key a device distributes with its identity address: resolves its
/// resolvable private addresses (`ah(IRK, prand) == hash`).
public struct IdentityResolvingKey: Hashable, Sendable, CustomStringConvertible {
    /// The key.
    public var key: SecretKey128
    /// An IRK from its 128-bit value.
    public init(key: SecretKey128) { self.key = key }
    /// True for the all-zero key, which is no IRK at all: anyone can make addresses that it
    /// "resolves", so lookups, resolving lists and stored bonds treat it as absent.
    public var isAllZero: Bool { key.withUnsafeKeyBytes { bytes in bytes.allSatisfy { $0 == 0 } } }
    /// The key, or nil when it is all zero (see ``isAllZero``).
    public var nonZero: IdentityResolvingKey? { isAllZero ? nil : self }
    /// Never the key.
    public var description: String { "IdentityResolvingKey(<128-bit key>)" }
}

/// The Connection Signature Resolving Key: signs and verifies Signed Write Commands.
public struct ConnectionSignatureResolvingKey: Hashable, Sendable, CustomStringConvertible {
    /// The key.
    public var key: SecretKey128
    /// A CSRK from its 128-bit value.
    public init(key: SecretKey128) { self.key = key }
    /// Never the key.
    public var description: String { "ConnectionSignatureResolvingKey(<128-bit key>)" }
}
