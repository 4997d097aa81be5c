import Foundation
import HaraldCodec

/// What two devices kept after pairing with bonding (SMP Phase 3): the keys that re-encrypt the
/// link on later connections, the peer's identity and its key to resolve private addresses.
///
/// A bond is stored under the peer's identity address (public or static random), which stays the
/// same while the address it connects from may be a resolvable private one that changes every few
/// minutes. Every key a bond holds comes from the same pairing, so the key size, the
/// authentication and Secure Connections flags are the bond's and its long term keys agree with
/// them (the initializer checks).
///
/// Printing, debug-printing, `dump` or a `Mirror` of a bond never shows key bits, EDIV or Rand:
/// only the addresses, the level and which keys are present. In a bond file keys are hex.
public struct Bond: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The peer's identity address: public, or static random (distributed in Identity Address
    /// Information, or the address it connected from when it sent none). Bonds are keyed by it.
    public let identityAddress: BluetoothAddress
    /// The address the peer last connected from: its identity, or a resolvable private address.
    public var lastAddress: BluetoothAddress
    /// The key that encrypts the link when we are central (LE Enable Encryption): with legacy
    /// pairing the LTK the peer distributed, with its EDIV and Rand; with LE Secure Connections the
    /// LTK both sides derived, EDIV and Rand 0, which also serves when we are peripheral.
    public let longTermKey: LongTermKey?
    /// The LTK we distributed in legacy pairing, with our EDIV and Rand: what a central peer asks
    /// for in an LTK Request. Always nil with LE Secure Connections.
    public let localLongTermKey: LongTermKey?
    /// The peer's IRK, to resolve its resolvable private addresses; nil if it sent none or sent
    /// the all-zero key (which is no key).
    public let peerIdentityResolvingKey: IdentityResolvingKey?
    /// The peer's CSRK, to verify its Signed Write Commands; nil if it sent none.
    public let peerSignatureKey: ConnectionSignatureResolvingKey?
    /// The CSRK we distributed, to sign our writes to the peer; nil if we sent none.
    public let localSignatureKey: ConnectionSignatureResolvingKey?
    /// The negotiated encryption key size in bytes (7…16).
    public let keySize: Int
    /// True when pairing protected against a man in the middle (passkey, numeric comparison, OOB).
    public let isAuthenticated: Bool
    /// True when the keys come from LE Secure Connections rather than legacy pairing.
    public let isSecureConnections: Bool
    /// When pairing made the bond, to the second (the precision the bond file keeps).
    public let createdAt: Date
    /// True once the peer answered this bond's key with another one (the link dropped with MIC
    /// Failure, HCI 0x3D) and the central's `LostBondPolicy` is `pairAgain`: the key is not used
    /// again, the next connection pairs with MITM protection instead of encrypting, and only a
    /// pairing at least as strong as this bond (authenticated, same level and key size or more)
    /// replaces it. A Just Works impostor therefore never takes the bond's place.
    public private(set) var peerRejectedKey: Bool = false

    /// A bond; throws if the pieces do not fit together.
    ///
    /// - Throws: ``InvalidBond`` when `identityAddress` is not public or static random, the key
    ///   size is outside 7…16, a long term key disagrees with the bond's key size or flags, a
    ///   Secure Connections key carries EDIV or Rand, or a Secure Connections bond has a local LTK.
    public init(
        identityAddress: BluetoothAddress,
        lastAddress: BluetoothAddress? = nil,
        longTermKey: LongTermKey? = nil,
        localLongTermKey: LongTermKey? = nil,
        peerIdentityResolvingKey: IdentityResolvingKey? = nil,
        peerSignatureKey: ConnectionSignatureResolvingKey? = nil,
        localSignatureKey: ConnectionSignatureResolvingKey? = nil,
        keySize: Int = 16,
        isAuthenticated: Bool,
        isSecureConnections: Bool,
        createdAt: Date = Date()
    ) throws(InvalidBond) {
        guard identityAddress.isIdentity else { throw .notAnIdentityAddress(identityAddress) }
        guard (7...16).contains(keySize) else { throw .keySizeOutOfRange(keySize) }
        for key in [longTermKey, localLongTermKey].compactMap(\.self) {
            guard key.keySize == keySize, key.isAuthenticated == isAuthenticated,
                key.isSecureConnections == isSecureConnections
            else { throw .keyDisagreesWithBond }
        }
        if isSecureConnections {
            guard localLongTermKey == nil else { throw .localKeyWithSecureConnections }
            if let key = longTermKey, key.ediv != 0 || key.rand != 0 { throw .secureConnectionsKeyWithEDIVOrRand }
        }
        self.identityAddress = identityAddress
        self.lastAddress = lastAddress ?? identityAddress
        self.longTermKey = longTermKey
        self.localLongTermKey = localLongTermKey
        // An all-zero IRK is no IRK: kept, it would let any address "resolve" to this peer.
        self.peerIdentityResolvingKey = peerIdentityResolvingKey?.nonZero
        self.peerSignatureKey = peerSignatureKey
        self.localSignatureKey = localSignatureKey
        self.keySize = keySize
        self.isAuthenticated = isAuthenticated
        self.isSecureConnections = isSecureConnections
        self.createdAt = Date(timeIntervalSince1970: createdAt.timeIntervalSince1970.rounded(.down))
    }

    /// The level a link encrypted with this bond's keys has.
    public var securityLevel: SecurityLevel {
        SecurityLevel(keyAuthenticated: isAuthenticated, secureConnections: isSecureConnections, keySize: keySize)
    }

    /// The LTK to hand the controller when the peer, as central, sends an LTK Request with this
    /// EDIV and Rand: the derived key for Secure Connections (EDIV and Rand 0), our distributed key
    /// for legacy pairing; nil when nothing matches (answer with a Negative Reply).
    public func longTermKey(requestedWithEDIV ediv: UInt16, rand: UInt64) -> LongTermKey? {
        if isSecureConnections {
            return ediv == 0 && rand == 0 ? longTermKey : nil
        }
        guard let key = localLongTermKey, key.ediv == ediv, key.rand == rand else { return nil }
        return key
    }

    /// What a pairing that made this bond achieved: the level, the key size, the identity.
    public var strength: BondStrength {
        BondStrength(identityAddress: identityAddress, level: securityLevel, keySize: keySize)
    }

    /// The same bond, seen last at `address`.
    public func seen(at address: BluetoothAddress) -> Bond {
        var bond = self
        bond.lastAddress = address
        return bond
    }

    /// The same bond, marked as holding a key the peer rejected (see ``peerRejectedKey``).
    public func markedPeerRejectedKey() -> Bond {
        var bond = self
        bond.peerRejectedKey = true
        return bond
    }

    /// The names of the keys present, for descriptions (`["LTK", "IRK"]`).
    var presentKeyNames: [String] {
        [
            longTermKey.map { _ in "LTK" }, localLongTermKey.map { _ in "local LTK" },
            peerIdentityResolvingKey.map { _ in "IRK" }, peerSignatureKey.map { _ in "CSRK" },
            localSignatureKey.map { _ in "local CSRK" },
        ].compactMap(\.self)
    }

    /// Addresses, level and which keys are present; never key bits, EDIV or Rand.
    public var description: String {
        let keys = presentKeyNames.isEmpty ? "no keys" : presentKeyNames.joined(separator: ", ")
        let seen = lastAddress == identityAddress ? "" : ", last seen as \(lastAddress)"
        let rejected = peerRejectedKey ? ", key rejected by the peer" : ""
        return "Bond(\(identityAddress)\(seen), \(securityLevel), \(keySize * 8)-bit, \(keys)\(rejected))"
    }

    /// The same text as ``description``, so a debugger or `debugPrint` shows no key material either.
    public var debugDescription: String { description }

    /// Addresses, sizes and flags, and the names of the keys present; never a key.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "identityAddress": identityAddress.description, "lastAddress": lastAddress.description,
                "keySize": keySize, "isAuthenticated": isAuthenticated,
                "isSecureConnections": isSecureConnections, "createdAt": createdAt,
                "keys": presentKeyNames, "peerRejectedKey": peerRejectedKey,
            ],
            displayStyle: .struct)
    }
}

/// Why a ``Bond`` or ``LocalIdentity`` could not be made (or read back from a bond file).
public enum InvalidBond: Error, Hashable, Sendable, CustomStringConvertible {
    /// Bonds and our identity need a public or static random address.
    case notAnIdentityAddress(BluetoothAddress)
    /// SMP negotiates 7 to 16 bytes.
    case keySizeOutOfRange(Int)
    /// A long term key's size, authentication or Secure Connections flag differs from the bond's.
    case keyDisagreesWithBond
    /// LE Secure Connections keys are used with EDIV = Rand = 0.
    case secureConnectionsKeyWithEDIVOrRand
    /// LE Secure Connections distributes no LTK: both sides derive the same one.
    case localKeyWithSecureConnections

    /// Which rule the bond breaks, with the offending value where there is one, e.g.
    /// `key size 17 is outside 7…16 bytes`.
    public var description: String {
        switch self {
        case .notAnIdentityAddress(let address): "\(address) is not an identity address (public or static random)"
        case .keySizeOutOfRange(let size): "key size \(size) is outside 7…16 bytes"
        case .keyDisagreesWithBond: "a long term key's size or flags differ from the bond's"
        case .secureConnectionsKeyWithEDIVOrRand: "a Secure Connections key must have EDIV and Rand 0"
        case .localKeyWithSecureConnections: "a Secure Connections bond has no distributed local LTK"
        }
    }
}

/// Our own identity, kept with the bonds: the identity address we distribute in Identity Address
/// Information and the IRK peers use to resolve our resolvable private addresses.
///
/// Generate it once and keep it: a peer that bonded with us finds us again only with the same
/// address and IRK. Descriptions and mirrors never show the IRK.
public struct LocalIdentity: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Our identity address: the controller's public address, or a static random address.
    public let address: BluetoothAddress
    /// Our IRK, from which our resolvable private addresses are made.
    public let identityResolvingKey: IdentityResolvingKey

    /// Our identity; throws ``InvalidBond/notAnIdentityAddress(_:)`` unless `address` is public or
    /// static random.
    public init(address: BluetoothAddress, identityResolvingKey: IdentityResolvingKey) throws(InvalidBond) {
        guard address.isIdentity else { throw .notAnIdentityAddress(address) }
        self.address = address
        self.identityResolvingKey = identityResolvingKey
    }

    /// A new identity with a random IRK: on the controller's public address if it has one,
    /// otherwise on a new static random address. Use a cryptographically secure generator (the
    /// default, `SystemRandomNumberGenerator`, is one).
    public static func generate<G: RandomNumberGenerator>(
        publicAddress: BluetoothAddress? = nil, using generator: inout G
    ) throws(InvalidBond) -> LocalIdentity {
        let address = publicAddress ?? .randomStatic(using: &generator)
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let key = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: bytes)!)  // 16 bytes by construction
        return try LocalIdentity(address: address, identityResolvingKey: key)
    }

    /// ``generate(publicAddress:using:)`` with the system's secure generator.
    public static func generate(publicAddress: BluetoothAddress? = nil) throws(InvalidBond) -> LocalIdentity {
        var generator = SystemRandomNumberGenerator()
        return try generate(publicAddress: publicAddress, using: &generator)
    }

    /// The address; never the IRK.
    public var description: String { "LocalIdentity(\(address), IRK)" }
    /// The same text as ``description``: the address, never the IRK.
    public var debugDescription: String { description }
    /// The address alone, so `dump` and debuggers show no IRK.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address.description], displayStyle: .struct)
    }
}

// MARK: Codable

/// A 128-bit key in a bond file: 32 hex digits, most significant byte first, as the Core spec
/// prints keys (``SecretKey128`` keeps them least significant first, as SMP carries them).
enum KeyHex {
    static func encode(_ key: SecretKey128) -> String {
        key.withUnsafeKeyBytes { Hex.encode($0.reversed()) }
    }

    /// The key, or nil; the text is never echoed into an error, so neither is a key.
    static func decode(_ text: String) -> SecretKey128? {
        guard text.count == 32, let bytes = try? Hex.decode(text) else { return nil }
        return SecretKey128(littleEndianBytes: bytes.reversed())
    }

    static func decodeKey<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> SecretKey128 {
        guard let secret = decode(try container.decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a 128-bit key as 32 hex digits")
        }
        return secret
    }

    static func decodeKeyIfPresent<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key) throws -> SecretKey128? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        return try decodeKey(container, key)
    }

    /// A fixed-width unsigned integer as hex, most significant first (EDIV: 4 digits, Rand: 16).
    static func decodeInteger<Value: FixedWidthInteger & UnsignedInteger, Key: CodingKey>(
        _ type: Value.Type, _ container: KeyedDecodingContainer<Key>, _ key: Key
    ) throws -> Value {
        let text = try container.decode(String.self, forKey: key)
        guard text.count == Value.bitWidth / 4, text.allSatisfy(\.isHexDigit), let value = Value(text, radix: 16) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "not \(Value.bitWidth / 4) hex digits")
        }
        return value
    }

    static func encodeInteger<Value: FixedWidthInteger & UnsignedInteger>(_ value: Value) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: Value.bitWidth / 4 - digits.count) + digits
    }
}

/// The key, EDIV and Rand of one LTK in a bond file; size and flags are the bond's.
private struct StoredLongTermKey: Codable {
    var key: SecretKey128
    var ediv: UInt16
    var rand: UInt64

    enum CodingKeys: String, CodingKey { case key, ediv, rand }

    init(_ key: LongTermKey) {
        self.key = key.key
        ediv = key.ediv
        rand = key.rand
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        key = try KeyHex.decodeKey(container, .key)
        ediv = try KeyHex.decodeInteger(UInt16.self, container, .ediv)
        rand = try KeyHex.decodeInteger(UInt64.self, container, .rand)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(KeyHex.encode(key), forKey: .key)
        try container.encode(KeyHex.encodeInteger(ediv), forKey: .ediv)
        try container.encode(KeyHex.encodeInteger(rand), forKey: .rand)
    }

    func longTermKey(keySize: Int, isAuthenticated: Bool, isSecureConnections: Bool) -> LongTermKey {
        LongTermKey(
            key: key, ediv: ediv, rand: rand, keySize: keySize, isAuthenticated: isAuthenticated,
            isSecureConnections: isSecureConnections)
    }
}

/// Coded as an object whose keys are hex strings (see ``KeyHex``) and whose date is ISO 8601 text,
/// whatever the encoder's strategies; absent keys are left out. Decoding checks what the
/// initializer checks.
extension Bond: Codable {
    enum CodingKeys: String, CodingKey {
        case identityAddress, lastAddress, keySize, authenticated, secureConnections, createdAt
        case longTermKey, localLongTermKey, peerIdentityResolvingKey, peerSignatureKey, localSignatureKey
        case peerRejectedKey
    }

    /// Reads a bond from the object `encode(to:)` writes and checks it as the initializer does; a
    /// bond that breaks a rule of ``InvalidBond`` throws `DecodingError.dataCorrupted`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let keySize = try container.decode(Int.self, forKey: .keySize)
        let authenticated = try container.decode(Bool.self, forKey: .authenticated)
        let secureConnections = try container.decode(Bool.self, forKey: .secureConnections)
        let dateText = try container.decode(String.self, forKey: .createdAt)
        guard let createdAt = try? Date(dateText, strategy: .iso8601) else {
            throw DecodingError.dataCorruptedError(forKey: .createdAt, in: container, debugDescription: "not an ISO 8601 date")
        }
        func ltk(_ key: CodingKeys) throws -> LongTermKey? {
            try container.decodeIfPresent(StoredLongTermKey.self, forKey: key)?
                .longTermKey(keySize: keySize, isAuthenticated: authenticated, isSecureConnections: secureConnections)
        }
        do {
            try self.init(
                identityAddress: container.decode(BluetoothAddress.self, forKey: .identityAddress),
                lastAddress: container.decode(BluetoothAddress.self, forKey: .lastAddress),
                longTermKey: ltk(.longTermKey),
                localLongTermKey: ltk(.localLongTermKey),
                peerIdentityResolvingKey: KeyHex.decodeKeyIfPresent(container, .peerIdentityResolvingKey).map(IdentityResolvingKey.init),
                peerSignatureKey: KeyHex.decodeKeyIfPresent(container, .peerSignatureKey).map(ConnectionSignatureResolvingKey.init),
                localSignatureKey: KeyHex.decodeKeyIfPresent(container, .localSignatureKey).map(ConnectionSignatureResolvingKey.init),
                keySize: keySize, isAuthenticated: authenticated, isSecureConnections: secureConnections,
                createdAt: createdAt)
        } catch let error as InvalidBond {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        // Absent in files written before the mark existed, and in every bond without it.
        peerRejectedKey = try container.decodeIfPresent(Bool.self, forKey: .peerRejectedKey) ?? false
    }

    /// Writes the bond as an object: addresses, key size, flags, the creation date as ISO 8601 text and
    /// the keys present as hex strings.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identityAddress, forKey: .identityAddress)
        try container.encode(lastAddress, forKey: .lastAddress)
        try container.encode(keySize, forKey: .keySize)
        try container.encode(isAuthenticated, forKey: .authenticated)
        try container.encode(isSecureConnections, forKey: .secureConnections)
        try container.encode(createdAt.formatted(.iso8601), forKey: .createdAt)
        try container.encodeIfPresent(longTermKey.map(StoredLongTermKey.init), forKey: .longTermKey)
        try container.encodeIfPresent(localLongTermKey.map(StoredLongTermKey.init), forKey: .localLongTermKey)
        try container.encodeIfPresent(peerIdentityResolvingKey.map { KeyHex.encode($0.key) }, forKey: .peerIdentityResolvingKey)
        try container.encodeIfPresent(peerSignatureKey.map { KeyHex.encode($0.key) }, forKey: .peerSignatureKey)
        try container.encodeIfPresent(localSignatureKey.map { KeyHex.encode($0.key) }, forKey: .localSignatureKey)
        if peerRejectedKey { try container.encode(true, forKey: .peerRejectedKey) }
    }
}

/// Coded as `{"address": "…/public", "identityResolvingKey": "<32 hex digits>"}`.
extension LocalIdentity: Codable {
    enum CodingKeys: String, CodingKey { case address, identityResolvingKey }

    /// Reads the identity from an object holding the address and the IRK as hex; throws
    /// `DecodingError.dataCorrupted` when the address is not an identity address.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let address = try container.decode(BluetoothAddress.self, forKey: .address)
        let key = IdentityResolvingKey(key: try KeyHex.decodeKey(container, .identityResolvingKey))
        do {
            try self.init(address: address, identityResolvingKey: key)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .address, in: container, debugDescription: error.description)
        }
    }

    /// Writes the identity as an object holding the address and the IRK as hex.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(KeyHex.encode(identityResolvingKey.key), forKey: .identityResolvingKey)
    }
}
