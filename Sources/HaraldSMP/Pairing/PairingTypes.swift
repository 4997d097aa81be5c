import HaraldCore

/// Where a pairing procedure sends and receives SMP PDUs: L2CAP channel 0x0006 of one link, or
/// an in-memory pipe in tests.
public protocol SMPBearer: Sendable {
    /// Sends one SMP PDU.
    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws
    /// The PDUs the peer sends, in order; finishes when the link ends.
    var incoming: AsyncStream<[UInt8]> { get }
}

/// What this device asks for and offers when pairing.
///
/// The defaults are the safe ones: keys of 16 octets only (a shorter key falls to an offline
/// search, the KNOB attack), the spec's debug public key refused. Loosening either is an explicit
/// choice that the engines log as a warning, once per configuration (``weakenings``).
public struct PairingConfiguration: Hashable, Sendable {
    /// The key size of LE Security Mode 1 Level 4 and of Secure Connections Only mode (Core spec
    /// Vol 3 Part C §10.2.4), and the default minimum: 16 octets (128 bits).
    public static let fullKeySize: UInt8 = 16

    /// What this device can show and take from a person (decides the association model).
    public var ioCapability: IOCapability
    /// Bonding (keep the keys), MITM protection wanted, Secure Connections supported…
    public var authReq: AuthReq
    /// The largest key size accepted, 7…16 octets.
    public var maxEncryptionKeySize: UInt8
    /// The smallest key size accepted from the peer, in octets: 16 by default. The spec allows
    /// down to 7, but a key shorter than 16 octets can be searched offline (KNOB); setting 7…15
    /// here is the explicit opt-in for old devices, and pairing logs a warning when it is used.
    /// A peer offering less gets Pairing Failed, Encryption Key Size (0x06).
    public var minEncryptionKeySize: UInt8
    /// Keys the initiator offers to distribute, and asks the responder to distribute.
    public var initiatorKeys: KeyDistribution
    /// Keys the initiator asks the responder to distribute.
    public var responderKeys: KeyDistribution
    /// Refuse LE legacy pairing (Pairing Failed, Authentication Requirements) when true, and
    /// require 16-octet keys whatever ``minEncryptionKeySize`` says.
    public var secureConnectionsOnly: Bool
    /// The SMP timeout: no PDU of the procedure for this long fails it (Core spec: 30 s).
    public var timeout: Duration
    /// Accept a peer whose public key is the spec's debug key (Core spec Vol 3 Part H
    /// §2.3.5.6.1), whose DHKey anyone can compute. Off by default: such a peer gets Pairing
    /// Failed, DHKey Check Failed (0x0B). When on (for a sniffer-assisted test bench only) the
    /// pairing completes, logs a warning, reports ``PairingOutcome/usedDebugKey`` and is never
    /// a bond.
    public var acceptsDebugKeys: Bool

    /// A configuration; the defaults pair with Just Works (no IO), ask for bonding and LE Secure
    /// Connections, accept only 16-octet keys and refuse the debug public key.
    public init(
        ioCapability: IOCapability = .noInputNoOutput, authReq: AuthReq = [.bonding, .secureConnections],
        maxEncryptionKeySize: UInt8 = 16, minEncryptionKeySize: UInt8 = PairingConfiguration.fullKeySize,
        initiatorKeys: KeyDistribution = [.idKey], responderKeys: KeyDistribution = [.encKey, .idKey],
        secureConnectionsOnly: Bool = false, timeout: Duration = .seconds(30), acceptsDebugKeys: Bool = false
    ) {
        self.ioCapability = ioCapability
        self.authReq = authReq
        self.maxEncryptionKeySize = maxEncryptionKeySize
        self.minEncryptionKeySize = minEncryptionKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
        self.secureConnectionsOnly = secureConnectionsOnly
        self.timeout = timeout
        self.acceptsDebugKeys = acceptsDebugKeys
    }

    /// The spec's Secure Connections Only mode (Core spec Vol 3 Part C §10.2.4): LE Secure
    /// Connections required (a legacy-only peer gets Pairing Failed, Authentication
    /// Requirements, 0x03), 16-octet keys, and MITM protection asked for whenever
    /// `ioCapability` can take part in an authenticated association model (anything but
    /// NoInputNoOutput); when MITM is asked for, a pairing that would end in Just Works fails
    /// with Authentication Requirements as well.
    public static func secureConnectionsOnlyMode(
        ioCapability: IOCapability = .noInputNoOutput, bonding: Bool = true,
        initiatorKeys: KeyDistribution = [.idKey], responderKeys: KeyDistribution = [.idKey]
    ) -> PairingConfiguration {
        var authReq: AuthReq = [.secureConnections]
        if bonding { authReq.insert(.bonding) }
        if ioCapability != .noInputNoOutput { authReq.insert(.mitm) }
        return PairingConfiguration(
            ioCapability: ioCapability, authReq: authReq, maxEncryptionKeySize: fullKeySize, minEncryptionKeySize: fullKeySize,
            initiatorKeys: initiatorKeys, responderKeys: responderKeys, secureConnectionsOnly: true)
    }

    /// The smallest key size this configuration accepts, in octets: ``minEncryptionKeySize``
    /// kept within 7…16, and 16 in Secure Connections Only mode.
    public var requiredKeySize: Int {
        if secureConnectionsOnly { return Int(Self.fullKeySize) }
        return min(max(Int(minEncryptionKeySize), PairingFeatures.encryptionKeySizes.lowerBound), Int(Self.fullKeySize))
    }

    /// What this configuration loosens against the secure defaults, one sentence each (empty for
    /// the defaults): a minimum key size under 16 octets, accepting the debug key. The engines
    /// log these as a warning the first time they pair with the configuration.
    public var weakenings: [String] {
        var found: [String] = []
        if requiredKeySize < Int(Self.fullKeySize) {
            found.append(
                "encryption keys down to \(requiredKeySize) octets are accepted (under 16 octets a key can be searched offline, the KNOB attack)")
        }
        if acceptsDebugKeys {
            found.append("the Security Manager's debug public key is accepted (anyone can decrypt such a link; it is never bonded)")
        }
        return found
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
    /// Whether the keys may be kept as a bond: both sides asked to bond, and the pairing did not
    /// use the debug key (always false when ``usedDebugKey`` is true).
    public var isBonding: Bool {
        get { askedToBond && !usedDebugKey }
        set { askedToBond = newValue }
    }
    /// Whether both sides asked to bond, whatever else happened.
    private var askedToBond: Bool
    /// True when the peer's public key was the spec's debug key (Core spec Vol 3 Part H
    /// §2.3.5.6.1, accepted only with ``PairingConfiguration/acceptsDebugKeys``): anyone who
    /// recorded the pairing can decrypt the link, so the keys are for this connection only and
    /// ``isBonding`` is false.
    public var usedDebugKey: Bool

    /// The security level a link encrypted with this pairing's key has (Core spec Vol 3 Part C
    /// §10.2.1): level 4 only for an authenticated LE Secure Connections key of 16 octets, and a
    /// key under 16 octets never counts as authenticated.
    public var securityLevel: SecurityLevel { method.securityLevel(keySize: keySize) }

    /// An outcome from its parts.
    public init(
        longTermKey: LongTermKey?, shortTermKey: SecretKey128?, localLongTermKey: LongTermKey?,
        peerIdentityResolvingKey: IdentityResolvingKey?, peerIdentityAddress: BluetoothAddress?,
        peerSignatureKey: ConnectionSignatureResolvingKey?, method: PairingMethod, keySize: Int, isBonding: Bool,
        usedDebugKey: Bool = false
    ) {
        self.longTermKey = longTermKey
        self.shortTermKey = shortTermKey
        self.localLongTermKey = localLongTermKey
        self.peerIdentityResolvingKey = peerIdentityResolvingKey
        self.peerIdentityAddress = peerIdentityAddress
        self.peerSignatureKey = peerSignatureKey
        self.method = method
        self.keySize = keySize
        self.askedToBond = isBonding
        self.usedDebugKey = usedDebugKey
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
    /// This device ended pairing with Pairing Failed, Encryption Key Size (0x06): the peer
    /// offered keys of at most `offered` octets and this device requires `required` (Core spec
    /// Vol 3 Part H §3.5.5; the KNOB defence).
    case encryptionKeySize(offered: Int, required: Int)

    /// The reason of the Pairing Failed this device sent (or sends) for this error; nil when the
    /// peer ended the pairing, the link went away or the SMP timeout passed.
    public var reasonSentHere: PairingFailureReason? {
        switch self {
        case .failedHere(let reason): reason
        case .encryptionKeySize: .encryptionKeySize
        case .keysRefused(let reason, _): reason
        case .failedByPeer, .timedOut, .linkLost, .encryptionFailed: nil
        }
    }

    /// Whether this ending counts as a failed attempt for Repeated Attempts protection
    /// (``PairingAttemptLimiter``): every failure of the procedure itself, but not a lost link
    /// nor a refusal for Repeated Attempts (which would keep a retrying peer out for good).
    public var countsAsFailedAttempt: Bool {
        switch self {
        case .failedHere(let reason), .failedByPeer(let reason): reason != .repeatedAttempts
        case .timedOut, .encryptionFailed, .keysRefused, .encryptionKeySize: true
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
        case let .encryptionKeySize(offered, required):
            "pairing failed: the peer offers an encryption key of \(offered) octets, \(required) are required (Encryption Key Size)"
        }
    }
}
