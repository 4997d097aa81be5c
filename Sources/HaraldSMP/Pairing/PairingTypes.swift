import HaraldCore

/// Where a pairing procedure sends and receives SMP PDUs: L2CAP channel 0x0006 of one link, or
/// an in-memory pipe in tests.
public protocol SMPBearer: Sendable {
    /// Sends one SMP PDU.
    func send(_ pdu: [UInt8]) async throws
    /// The PDUs the peer sends, in order; finishes when the link ends.
    var incoming: AsyncStream<[UInt8]> { get }
}

/// What this device asks for and offers when pairing.
public struct PairingConfiguration: Hashable, Sendable {
    /// What this device can show and take from a person (decides the association model).
    public var ioCapability: IOCapability
    /// Bonding (keep the keys), MITM protection wanted, Secure Connections supported…
    public var authReq: AuthReq
    /// The largest key size accepted, 7…16 octets.
    public var maxEncryptionKeySize: UInt8
    /// The smallest key size accepted from the peer (the spec allows 7; 16 is safest).
    public var minEncryptionKeySize: UInt8
    /// Keys the initiator offers to distribute, and asks the responder to distribute.
    public var initiatorKeys: KeyDistribution
    /// Keys the initiator asks the responder to distribute.
    public var responderKeys: KeyDistribution
    /// Refuse LE legacy pairing (Pairing Failed, Authentication Requirements) when true.
    public var secureConnectionsOnly: Bool
    /// The SMP timeout: no PDU of the procedure for this long fails it (Core spec: 30 s).
    public var timeout: Duration

    /// A configuration; the defaults pair with Just Works (no IO), ask for bonding and LE Secure Connections, and accept keys of 7…16 octets.
    public init(
        ioCapability: IOCapability = .noInputNoOutput, authReq: AuthReq = [.bonding, .secureConnections],
        maxEncryptionKeySize: UInt8 = 16, minEncryptionKeySize: UInt8 = 7,
        initiatorKeys: KeyDistribution = [.idKey], responderKeys: KeyDistribution = [.encKey, .idKey],
        secureConnectionsOnly: Bool = false, timeout: Duration = .seconds(30)
    ) {
        self.ioCapability = ioCapability
        self.authReq = authReq
        self.maxEncryptionKeySize = maxEncryptionKeySize
        self.minEncryptionKeySize = minEncryptionKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
        self.secureConnectionsOnly = secureConnectionsOnly
        self.timeout = timeout
    }
}

/// The two devices of a pairing as the crypto functions need them: addresses with their types.
public struct PairingAddresses: Hashable, Sendable {
    /// The initiator's (central's) address on this link.
    public var initiator: BluetoothAddress
    /// The responder's (peripheral's) address on this link.
    public var responder: BluetoothAddress

    /// The two addresses as used on the link (they enter the confirm and check values).
    public init(initiator: BluetoothAddress, responder: BluetoothAddress) {
        self.initiator = initiator
        self.responder = responder
    }
}

/// What a finished pairing produced.
public struct PairingOutcome: Sendable {
    /// The key the link is encrypted with, and will be again on reconnection (Secure Connections:
    /// the derived LTK with EDIV = Rand = 0; legacy: the LTK the responder distributed, if any).
    public var longTermKey: LongTermKey?
    /// The Short Term Key of legacy pairing (what the link was first encrypted with).
    public var shortTermKey: SecretKey128?
    /// The legacy LTK this device distributed (with its EDIV and Rand), if it did.
    public var localLongTermKey: LongTermKey?
    /// The peer's identity (Identity Information + Identity Address Information), if distributed.
    public var peerIdentityResolvingKey: IdentityResolvingKey?
    /// The peer's identity address, when it distributed one.
    public var peerIdentityAddress: BluetoothAddress?
    /// The peer's CSRK, if distributed.
    public var peerSignatureKey: ConnectionSignatureResolvingKey?
    /// How the devices authenticated each other.
    public var method: PairingMethod
    /// The negotiated key size in octets.
    public var keySize: Int
    /// Whether both sides asked to bond (keep the keys).
    public var isBonding: Bool

    /// An outcome from its parts.
    public init(
        longTermKey: LongTermKey?, shortTermKey: SecretKey128?, localLongTermKey: LongTermKey?,
        peerIdentityResolvingKey: IdentityResolvingKey?, peerIdentityAddress: BluetoothAddress?,
        peerSignatureKey: ConnectionSignatureResolvingKey?, method: PairingMethod, keySize: Int, isBonding: Bool
    ) {
        self.longTermKey = longTermKey
        self.shortTermKey = shortTermKey
        self.localLongTermKey = localLongTermKey
        self.peerIdentityResolvingKey = peerIdentityResolvingKey
        self.peerIdentityAddress = peerIdentityAddress
        self.peerSignatureKey = peerSignatureKey
        self.method = method
        self.keySize = keySize
        self.isBonding = isBonding
    }
}

/// Why pairing failed.
public enum PairingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// This device ended it with Pairing Failed and this reason (a wrong confirm value, refused
    /// parameters, the person said no…).
    case failedHere(PairingFailureReason)
    /// The peer sent Pairing Failed with this reason.
    case failedByPeer(PairingFailureReason)
    /// No PDU for the SMP timeout; no more SMP on this link until it reconnects.
    case timedOut
    /// The link went away (or the bearer failed) during pairing.
    case linkLost(String)
    /// Encrypting the link with the new key failed (HCI status code).
    case encryptionFailed(UInt8)
    /// This device refused the keys the peer distributed (see ``PeerKeysCheck``): it sent Pairing
    /// Failed with this reason and nothing is stored; `refusal` says why.
    case keysRefused(PairingFailureReason, BondRefusal)

    /// Whether this ending counts as a failed attempt for Repeated Attempts protection
    /// (``PairingAttemptLimiter``): every failure of the procedure itself, but not a lost link
    /// nor a refusal for Repeated Attempts (which would keep a retrying peer out for good).
    public var countsAsFailedAttempt: Bool {
        switch self {
        case .failedHere(let reason), .failedByPeer(let reason): reason != .repeatedAttempts
        case .timedOut, .encryptionFailed, .keysRefused: true
        case .linkLost: false
        }
    }

    /// How pairing ended, with the Pairing Failed reason, the link-loss detail or the HCI status, e.g.
    /// `the peer failed pairing: Confirm Value Failed (0x04)`.
    public var description: String {
        switch self {
        case let .failedHere(reason): "pairing failed: \(reason)"
        case let .failedByPeer(reason): "the peer failed pairing: \(reason)"
        case .timedOut: "pairing timed out (SMP timeout)"
        case let .linkLost(detail): "the link went away during pairing: \(detail)"
        case let .encryptionFailed(status): "encrypting with the new key failed (HCI status 0x\(String(status, radix: 16)))"
        case let .keysRefused(_, refusal): "the peer's keys were refused: \(refusal)"
        }
    }
}
