import HaraldCore

/// What the peer of a pairing distributed in phase 3 and what the pairing achieved, handed to a
/// ``PeerKeysCheck`` before the pairing ends, so its keys can be refused with Pairing Failed.
/// Carries no LTK; the IRK only to resolve the address the peer connected from.
public struct PeerPairingKeys: Sendable {
    /// The address the peer is connected from on this link (identity or resolvable private).
    public var connectedFrom: BluetoothAddress
    /// The identity address the peer distributed (Identity Address Information), if any.
    public var identityAddress: BluetoothAddress?
    /// The IRK the peer distributed (Identity Information), if any; may be all zero.
    public var identityResolvingKey: IdentityResolvingKey?
    /// How the devices authenticated each other.
    public var method: PairingMethod
    /// The negotiated key size in octets.
    public var keySize: Int
    /// Whether both sides asked to bond: only then is anything stored or replaced.
    public var isBonding: Bool

    /// The peer's keys and the pairing's method, key size (octets) and bonding.
    public init(
        connectedFrom: BluetoothAddress, identityAddress: BluetoothAddress?, identityResolvingKey: IdentityResolvingKey?,
        method: PairingMethod, keySize: Int, isBonding: Bool
    ) {
        self.connectedFrom = connectedFrom
        self.identityAddress = identityAddress
        self.identityResolvingKey = identityResolvingKey
        self.method = method
        self.keySize = keySize
        self.isBonding = isBonding
    }

    /// The level a link encrypted with this pairing's key gets.
    public var securityLevel: SecurityLevel { method.securityLevel(keySize: keySize) }
}

/// A check's answer: keep the peer's keys, or end the pairing with Pairing Failed and this reason.
public enum PeerKeysVerdict: Hashable, Sendable {
    /// The keys may be kept.
    case accept
    /// Pairing Failed with `reason`; the pairing throws ``PairingError/keysRefused(_:_:)``.
    case refuse(PairingFailureReason, BondRefusal)
}

/// Decides, once the peer's keys arrived and before the pairing ends, whether they may be kept
/// (the identity they claim is proven by the connection, and they replace no stronger bond).
/// The initiator asks before it distributes its own keys, the responder after the initiator's
/// keys; either way a refusal sends Pairing Failed. Bounded by the SMP timeout.
public typealias PeerKeysCheck = @Sendable (PeerPairingKeys) async -> PeerKeysVerdict
