import Foundation
import Harald
import HaraldCore
import HaraldGATTBackend
import HaraldHCI
import HaraldSMP
import Logging

/// What the HCI backend does when a bonded peer turns out to have lost its keys (the encryption
/// with the stored LTK fails with PIN or Key Missing).
public enum LostBondPolicy: Hashable, Sendable {
    /// Fail with ``BluetoothError/peerRemovedPairingInformation`` and keep the stored bond: the
    /// app decides (pairing again silently would let an impostor replace a bond).
    case fail
    /// Delete the stored bond and pair again.
    case pairAgain
}

/// How the HCI backend secures links: where bonds live, what it offers when pairing, who answers
/// the person's side of pairing, and what to do about a peer that lost its bond.
public struct HCISecurityConfiguration: Sendable {
    public var bonds: any BondStore
    public var pairing: PairingConfiguration
    public var agent: any PairingAgent
    public var lostBond: LostBondPolicy
    /// Repeated Attempts protection (Core spec Vol 3 Part H §2.3.6): after a failed pairing with
    /// a peer, the next one waits, longer after each failure. Nil: the backend makes one on its
    /// clock with the default policy (2 s doubling up to 64 s).
    public var attempts: PairingAttemptLimiter?

    public init(
        bonds: any BondStore, pairing: PairingConfiguration = PairingConfiguration(), agent: any PairingAgent = AutomaticPairingAgent(),
        lostBond: LostBondPolicy = .fail, attempts: PairingAttemptLimiter? = nil
    ) {
        self.bonds = bonds
        self.pairing = pairing
        self.agent = agent
        self.lostBond = lostBond
        self.attempts = attempts
    }
}

/// The link security of one HCI connection as central: encrypts with the bond's key when the peer
/// is bonded, pairs otherwise (through `pair`), and keeps the bond store current.
actor HCILinkSecurity: LinkSecurityManager {
    private let link: LEConnection
    private let configuration: HCISecurityConfiguration
    /// Runs the Security Manager's pairing as initiator on this link, returning what it produced
    /// (the link is encrypted with the new key when it returns).
    private let pair: @Sendable () async throws(PairingError) -> PairingOutcome
    private let logger: Logger
    private var level = SecurityLevel.none
    private var bonded = false
    /// The peer's identity address when it is on a resolvable private address we resolved.
    private let peerIdentity: BluetoothAddress?
    private let attempts: PairingAttemptLimiter?
    /// Set once a pairing hit the SMP timeout: no more SMP on this link (Vol 3 Part H §3.4).
    private var smpTimedOut = false

    init(
        link: LEConnection, configuration: HCISecurityConfiguration, logger: Logger, peerIdentity: BluetoothAddress? = nil,
        attempts: PairingAttemptLimiter? = nil, pair: @escaping @Sendable () async throws(PairingError) -> PairingOutcome
    ) {
        self.link = link
        self.configuration = configuration
        self.logger = logger
        self.peerIdentity = peerIdentity
        self.attempts = attempts
        self.pair = pair
    }

    /// The peer's addresses, as the Repeated Attempts limiter knows it.
    private var peerAddresses: [BluetoothAddress] { [link.peer] + (peerIdentity.map { [$0] } ?? []) }

    func currentSecurity() async -> LinkSecurity {
        let parameters = link.parameters
        guard parameters.isEncrypted else { return LinkSecurity(level: .none, isBonded: bonded) }
        return LinkSecurity(level: level == .none ? .encrypted : level, isBonded: bonded, keySize: parameters.keySize.map(Int.init))
    }

    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        let bond: Bond?
        do throws(BondStoreError) {
            // A private address the store cannot resolve itself may still be a bond we resolved.
            var found = try await configuration.bonds.bond(resolving: link.peer)
            if found == nil, let peerIdentity { found = try await configuration.bonds.bond(for: peerIdentity) }
            bond = found
        } catch { throw .backend("the bond store: \(error)") }
        // Encrypting with the bond's key helps unless the link is encrypted already (then the
        // peer wants more than the bond gives: a stronger pairing).
        if let bond, let key = bond.longTermKey, !link.parameters.isEncrypted, key.securityLevel >= Self.needed(for: code) {
            do {
                try await link.encrypt(with: key.key, rand: key.rand, ediv: key.ediv)
                level = bond.securityLevel
                bonded = true
                return await currentSecurity()
            } catch {
                guard case .encryptionFailed(let status) = error, status == .pinOrKeyMissing else { throw HCICentralBackend.translate(error) }
                logger.notice("the peer lost its bond", metadata: ["peer": "\(link.peer)"])
                guard configuration.lostBond == .pairAgain else { throw .peerRemovedPairingInformation }
                do { try await configuration.bonds.removeBond(for: bond.identityAddress) } catch { throw .backend("the bond store: \(error)") }
            }
        }
        return try await pairNow()
    }

    /// Pairs, and stores the bond when both sides asked to bond.
    private func pairNow() async throws(BluetoothError) -> LinkSecurity {
        let outcome: PairingOutcome
        if smpTimedOut { throw .pairingFailed("the SMP timeout passed on this link; pairing needs a new connection") }
        if let wait = await attempts?.remainingWait(forAny: peerAddresses) { throw .pairingAttemptTooSoon(retryAfter: wait) }
        do { outcome = try await pair() } catch {
            if error == .timedOut { smpTimedOut = true }
            if error.countsAsFailedAttempt { await attempts?.recordFailure(ofAny: peerAddresses) }
            throw Self.translate(error)
        }
        await attempts?.recordSuccess(ofAny: peerAddresses + (outcome.peerIdentityAddress.map { [$0] } ?? []))
        level = outcome.method.securityLevel(keySize: outcome.keySize)
        if outcome.isBonding, let key = outcome.longTermKey {
            let identity = outcome.peerIdentityAddress ?? peerIdentity ?? link.peer
            do {
                let bond = try Bond(
                    identityAddress: identity.isIdentity ? identity : link.peer, lastAddress: link.peer, longTermKey: key,
                    localLongTermKey: outcome.localLongTermKey, peerIdentityResolvingKey: outcome.peerIdentityResolvingKey,
                    peerSignatureKey: outcome.peerSignatureKey, localSignatureKey: nil, keySize: outcome.keySize,
                    isAuthenticated: key.isAuthenticated, isSecureConnections: key.isSecureConnections, createdAt: Date())
                try await configuration.bonds.save(bond)
                bonded = true
            } catch {
                // The link is secured either way; the next connection will pair again.
                logger.warning("could not store the bond", metadata: ["peer": "\(link.peer)", "error": "\(error)"])
            }
        }
        return await currentSecurity()
    }

    /// The level a refusal asks for: authentication for 0x05, encryption otherwise.
    static func needed(for code: ATTErrorCode) -> SecurityLevel {
        code == .insufficientAuthentication ? .authenticated : .encrypted
    }

    static func translate(_ error: PairingError) -> BluetoothError {
        switch error {
        case .linkLost: .disconnected(.connectionLost)
        case .timedOut: .timeout(operation: "pairing", after: .seconds(30))
        case let .encryptionFailed(status) where status == HCIStatus.pinOrKeyMissing.rawValue: .peerRemovedPairingInformation
        case let .failedHere(reason): .pairingFailed("\(reason)")
        case let .failedByPeer(reason): .pairingFailed("the peer refused: \(reason)")
        default: .pairingFailed(error.description)
        }
    }
}
