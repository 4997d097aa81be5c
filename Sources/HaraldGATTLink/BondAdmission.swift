import HaraldCore
import HaraldSMP

/// The rules a pairing's keys pass before they may become a bond, on either role (the central's
/// ``BondingLinkSecurity`` and the HCI peripheral give it to their Security Manager as its
/// `PeerKeysCheck`):
///
/// 1. **A claimed identity is proven by the connection.** A peer connected from an identity
///    address (public or static random) must name that same address in Identity Address
///    Information; one connected from a resolvable private address must distribute an IRK that
///    resolves it (`ah`, Core spec Vol 3 Part H §2.2.2); one connected from a non-resolvable
///    private address cannot prove any identity. Otherwise: Pairing Failed, Invalid Parameters
///    (0x0A) — the Identity Address Information the peer sent is not a valid value for this
///    connection, which is a fault in what it sent rather than in our policy.
/// 2. **No overwrite of another device's bond**: a bond stored under the identity is replaced
///    only by a pairing on a connection from that identity, or from an address its stored IRK
///    resolves (or that the backend already resolved to it). Never allowed otherwise.
/// 3. **No downgrade**: a bond of the same device is replaced only by an authenticated pairing
///    at least as strong in level and key size, unless the pairing agent confirms
///    (`PairingAgent.confirmBondReplacement(existing:replacement:)`, no by default).
///
/// Refusals under 2 and 3 (and an unreadable bond store) answer Pairing Failed, Unspecified
/// Reason (0x08): the peer sent nothing invalid, this device's policy refuses, and no other
/// reason fits — Authentication Requirements (0x03) would tell the peer its IO capabilities
/// were the problem. An all-zero IRK counts as no IRK throughout.
public struct BondAdmission: Sendable {
    /// Where the bonds the pairing would replace are stored.
    public let bonds: any BondStore
    /// Asked before a weaker pairing replaces a bond of the same device.
    public let agent: any PairingAgent

    /// The rules over `bonds`, asking `agent` about weaker replacements.
    public init(bonds: any BondStore, agent: any PairingAgent) {
        self.bonds = bonds
        self.agent = agent
    }

    /// The identity a bond from this pairing is kept under: the identity address the peer
    /// distributed, else the identity the backend knows for the link, else the address the peer
    /// connected from when that is an identity address; nil when none is (nothing is stored).
    public static func bondIdentity(
        distributed: BluetoothAddress?, knownIdentity: BluetoothAddress?, connectedFrom: BluetoothAddress
    ) -> BluetoothAddress? {
        [distributed, knownIdentity, connectedFrom].compactMap(\.self).first(where: \.isIdentity)
    }

    /// Whether the identity the peer distributed (if any) is proven by the address it connected from.
    public static func identityIsProven(_ keys: PeerPairingKeys) -> Bool {
        guard let claimed = keys.identityAddress else { return true }
        guard claimed.isIdentity else { return false }
        let peer = keys.connectedFrom
        if peer.isIdentity { return claimed == peer }
        guard peer.isResolvablePrivate, let key = keys.identityResolvingKey?.nonZero else { return false }
        return key.resolves(peer)
    }

    /// The verdict on a pairing's keys.
    ///
    /// - Parameters:
    ///   - keys: what the peer distributed and what the pairing achieved.
    ///   - knownIdentity: the identity the backend already knows for the peer on this link (the
    ///     bonded identity its private address resolved to, or the identity it was asked to
    ///     connect to); nil when it knows none.
    public func check(_ keys: PeerPairingKeys, knownIdentity: BluetoothAddress?) async -> PeerKeysVerdict {
        let peer = keys.connectedFrom
        if let claimed = keys.identityAddress, !Self.identityIsProven(keys) {
            return .refuse(.invalidParameters, .identityNotProven(connectedFrom: peer, claimed: claimed))
        }
        guard keys.isBonding,
            let identity = Self.bondIdentity(distributed: keys.identityAddress, knownIdentity: knownIdentity, connectedFrom: peer)
        else { return .accept }
        let existing: Bond?
        do { existing = try await bonds.bond(for: identity) } catch {
            return .refuse(.unspecifiedReason, .bondStoreUnavailable("\(error)"))
        }
        guard let existing else { return .accept }
        let sameDevice =
            peer == identity || knownIdentity == identity || (existing.peerIdentityResolvingKey?.resolves(peer) ?? false)
        guard sameDevice else { return .refuse(.unspecifiedReason, .identityBondedToAnotherDevice(identity)) }
        let replacement = BondStrength(identityAddress: identity, level: keys.securityLevel, keySize: keys.keySize)
        if replacement.mayReplaceWithoutAsking(existing.strength) { return .accept }
        if await agent.confirmBondReplacement(existing: existing.strength, replacement: replacement) { return .accept }
        return .refuse(.unspecifiedReason, .weakerThanStoredBond(existing: existing.strength, replacement: replacement))
    }
}
