import HaraldCore

/// What a central does when a bonded peer turns out to have lost its keys (encrypting with the
/// stored LTK fails with PIN or Key Missing, HCI 0x06) or to hold other ones (the link drops with
/// MIC Failure, 0x3D). Such a peer may also be an impostor at the bonded device's address, so the
/// link never goes on in clear as if it were the bonded device.
public enum LostBondPolicy: Hashable, Sendable {
    /// Fail with a "peer removed pairing information" error, end the link (HCI Disconnect,
    /// Authentication Failure) and keep the stored bond: the app decides (pairing again silently
    /// would let an impostor replace a bond).
    case fail
    /// Pair again, with MITM protection required (a Just Works pairing would let an impostor
    /// replace the bond; with IO capabilities that cannot authenticate nothing is attempted and
    /// the link ends): on the same link after PIN or Key Missing, where the new bond replaces the
    /// old one only if it is at least as strong; after a MIC Failure, which ends the link, the
    /// call fails with "peer removed pairing information", the stored bond is marked
    /// (`Bond.peerRejectedKey`) and the next connection pairs with MITM protection instead of
    /// encrypting; again only a pairing at least as strong replaces the bond.
    case pairAgain
}

/// How a central secures its links, on any backend that runs Harald's own Security Manager (the
/// HCI host, the simulator): where bonds live, what it offers when pairing, who answers the
/// person's side of pairing, and what to do about a peer that lost its bond.
public struct SecurityConfiguration: Sendable {
    /// Bonds, and this device's own identity (address and IRK).
    public var bonds: any BondStore
    /// IO capability, AuthReq (bonding, MITM, Secure Connections), key sizes, keys distributed.
    public var pairing: PairingConfiguration
    /// Confirms, compares, types or shows what the association model asks for.
    public var agent: any PairingAgent
    /// What to do when a bonded peer lost its keys.
    public var lostBond: LostBondPolicy
    /// Repeated Attempts protection (Core spec Vol 3 Part H §2.3.6): after a failed pairing with
    /// a peer, the next one waits, longer after each failure. Nil: the backend makes one on its
    /// clock with the default policy (2 s doubling up to 64 s).
    public var attempts: PairingAttemptLimiter?
    /// Encrypt a connection to a bonded peer with the bond's key before its first ATT request
    /// (true, the default): an impostor at a bonded device's address that never asks for
    /// security is then never served as that device, and even open characteristics of a bonded
    /// peer are read over an encrypted link (the BLESA attack, 2020). False encrypts only when
    /// the peer refuses a request or sends a Security Request, and logs a warning when used.
    public var encryptsBondedPeersFirst: Bool

    /// A configuration; by default pairing is Just Works, answered without asking, a lost bond
    /// fails, and bonded peers are encrypted before anything is read from them.
    public init(
        bonds: any BondStore, pairing: PairingConfiguration = PairingConfiguration(), agent: any PairingAgent = AutomaticPairingAgent(),
        lostBond: LostBondPolicy = .fail, attempts: PairingAttemptLimiter? = nil, encryptsBondedPeersFirst: Bool = true
    ) {
        self.bonds = bonds
        self.pairing = pairing
        self.agent = agent
        self.lostBond = lostBond
        self.attempts = attempts
        self.encryptsBondedPeersFirst = encryptsBondedPeersFirst
    }

    /// The spec's Secure Connections Only mode (Core spec Vol 3 Part C §10.2.4) for a device
    /// whose person answers through `agent` with `ioCapability`: LE Secure Connections only
    /// (a legacy-only peer is refused with Authentication Requirements, 0x03), 16-octet keys,
    /// MITM protection whenever `ioCapability` allows it (see
    /// ``PairingConfiguration/secureConnectionsOnlyMode(ioCapability:bonding:initiatorKeys:responderKeys:)``).
    public static func secureConnectionsOnly(
        bonds: any BondStore, ioCapability: IOCapability = .noInputNoOutput, agent: any PairingAgent = AutomaticPairingAgent(),
        lostBond: LostBondPolicy = .fail, attempts: PairingAttemptLimiter? = nil
    ) -> SecurityConfiguration {
        SecurityConfiguration(
            bonds: bonds, pairing: .secureConnectionsOnlyMode(ioCapability: ioCapability), agent: agent, lostBond: lostBond,
            attempts: attempts)
    }
}
