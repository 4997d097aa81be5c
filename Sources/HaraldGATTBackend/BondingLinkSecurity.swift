import Foundation
import Harald
import HaraldCore
import HaraldSMP
import Logging

/// Why encrypting a link with a stored key failed.
public enum LinkEncryptionError: Error, Sendable {
    /// The peer has no key for us any more (Encryption Change or LTK negative reply with PIN or
    /// Key Missing, HCI 0x06): it lost or deleted the bond.
    case peerKeyMissing
    /// Anything else (the link went away, the controller refused…).
    case failed(BluetoothError)
}

/// What ``BondingLinkSecurity`` needs from one connection: its encryption state, LE Enable
/// Encryption with a stored key, and the Security Manager's pairing as initiator. The HCI host
/// and the simulator each provide one.
public protocol PairableLink: Sendable {
    /// The peer's address on this connection (it may be a resolvable private address).
    var peerAddress: BluetoothAddress { get }
    /// How the link is encrypted now.
    func encryption() async -> LinkEncryption
    /// Encrypts with a key stored in a bond; returns once the link is encrypted.
    func encrypt(with key: LongTermKey) async throws(LinkEncryptionError)
    /// Pairs as initiator with this configuration and agent, distributing `localKeys` (our IRK and
    /// identity address) when the peer asks for them; on return the link is encrypted with the
    /// new key.
    func pair(configuration: PairingConfiguration, agent: any PairingAgent, localKeys: LocalPairingKeys?) async throws(PairingError)
        -> PairingOutcome
}

/// The link security of one connection as central, for backends that run Harald's own Security
/// Manager: encrypts with the bond's key when the peer is bonded, pairs otherwise, keeps the bond
/// store current, and applies the ``LostBondPolicy`` when the peer lost its keys.
///
/// Concurrent requests to raise security share one attempt: two reads refused at once start one
/// pairing, not two.
public actor BondingLinkSecurity: LinkSecurityManager {
    private let link: any PairableLink
    private let configuration: SecurityConfiguration
    private let logger: Logger
    /// The level the last encryption or pairing gave the link.
    private var level = SecurityLevel.none
    private var bonded = false
    /// The attempt under way, which later callers join.
    private var attempt: Task<Result<LinkSecurity, BluetoothError>, Never>?
    /// Where the shared attempt runs (the simulation's executor in a simulation).
    private let taskStarter: TaskStarter

    public init(
        link: any PairableLink, configuration: SecurityConfiguration, logger: Logger = Logger(label: "harald.security"),
        taskStarter: TaskStarter = .default
    ) {
        self.taskStarter = taskStarter
        self.link = link
        self.configuration = configuration
        self.logger = logger
    }

    public func currentSecurity() async -> LinkSecurity {
        let encryption = await link.encryption()
        guard encryption.isEncrypted else { return LinkSecurity(level: .none, isBonded: bonded) }
        return LinkSecurity(level: level == .none ? .encrypted : level, isBonded: bonded, keySize: encryption.keySize)
    }

    public func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await joinOrStart { security throws(BluetoothError) in try await security.encryptOrPair(needing: Self.needed(for: code)) }
    }

    public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await joinOrStart { security throws(BluetoothError) in try await security.pairNow() }
    }

    /// Runs `work`, or waits for the attempt already running.
    private func joinOrStart(_ work: @escaping @Sendable (BondingLinkSecurity) async throws(BluetoothError) -> LinkSecurity) async throws(BluetoothError)
        -> LinkSecurity
    {
        let task: Task<Result<LinkSecurity, BluetoothError>, Never>
        if let running = attempt {
            task = running
        } else {
            task = taskStarter.start {
                do throws(BluetoothError) { return .success(try await work(self)) } catch { return .failure(error) }
            }
            attempt = task
        }
        defer { if attempt == task { attempt = nil } }
        return try await task.value.get()
    }

    /// Encrypts with the bond's key when there is one good enough and the link is not encrypted
    /// yet; pairs otherwise (and when the peer lost its bond and the policy allows).
    private func encryptOrPair(needing needed: SecurityLevel) async throws(BluetoothError) -> LinkSecurity {
        let bond = try await storedBond()
        // With the link encrypted already the peer wants more than the bond gives: pair anew.
        if let bond, let key = bond.longTermKey, await !link.encryption().isEncrypted, key.securityLevel >= needed {
            do throws(LinkEncryptionError) {
                try await link.encrypt(with: key)
                level = bond.securityLevel
                bonded = true
                try? await configuration.bonds.save(bond.seen(at: link.peerAddress))
                return await currentSecurity()
            } catch {
                guard case .peerKeyMissing = error else {
                    if case .failed(let failure) = error { throw failure }
                    throw .backend("encryption failed")
                }
                logger.notice("the peer lost its bond", metadata: ["peer": "\(link.peerAddress)"])
                guard configuration.lostBond == .pairAgain else { throw .peerRemovedPairingInformation }
                do { _ = try await configuration.bonds.removeBond(for: bond.identityAddress) } catch { throw .backend("the bond store: \(error)") }
            }
        }
        return try await pairNow()
    }

    /// The bond stored for the peer, found by its identity, its last address or its IRK.
    private func storedBond() async throws(BluetoothError) -> Bond? {
        do { return try await configuration.bonds.bond(resolving: link.peerAddress) } catch { throw .backend("the bond store: \(error)") }
    }

    /// Pairs, and stores the bond when both sides asked to bond.
    private func pairNow() async throws(BluetoothError) -> LinkSecurity {
        let identity: LocalIdentity?
        do { identity = try await configuration.bonds.localIdentity() } catch { throw .backend("the bond store: \(error)") }
        let localKeys = identity.map { LocalPairingKeys(identityResolvingKey: $0.identityResolvingKey, identityAddress: $0.address) }
        let outcome: PairingOutcome
        do { outcome = try await link.pair(configuration: configuration.pairing, agent: configuration.agent, localKeys: localKeys) } catch {
            throw Self.translate(error, timeout: configuration.pairing.timeout)
        }
        level = outcome.method.securityLevel(keySize: outcome.keySize)
        bonded = false
        guard outcome.isBonding, let key = outcome.longTermKey else { return await currentSecurity() }
        let peer = link.peerAddress
        let identityAddress = outcome.peerIdentityAddress.flatMap { $0.isIdentity ? $0 : nil } ?? (peer.isIdentity ? peer : nil)
        guard let identityAddress else {
            logger.warning("the peer gave no identity address: the bond is not kept", metadata: ["peer": "\(peer)"])
            return await currentSecurity()
        }
        do {
            let bond = try Bond(
                identityAddress: identityAddress, lastAddress: peer, longTermKey: key, localLongTermKey: outcome.localLongTermKey,
                peerIdentityResolvingKey: outcome.peerIdentityResolvingKey, peerSignatureKey: outcome.peerSignatureKey,
                localSignatureKey: nil, keySize: outcome.keySize, isAuthenticated: key.isAuthenticated,
                isSecureConnections: key.isSecureConnections, createdAt: Date())
            try await configuration.bonds.save(bond)
            bonded = true
        } catch {
            // The link is secured either way; the next connection pairs again.
            logger.warning("could not store the bond", metadata: ["peer": "\(peer)", "error": "\(error)"])
        }
        return await currentSecurity()
    }

    /// The level a refusal asks for: authentication for 0x05, encryption otherwise.
    static func needed(for code: ATTErrorCode) -> SecurityLevel {
        code == .insufficientAuthentication ? .authenticated : .encrypted
    }

    /// The public error for a failed pairing.
    public static func translate(_ error: PairingError, timeout: Duration) -> BluetoothError {
        switch error {
        case .linkLost: .disconnected(.connectionLost)
        case .timedOut: .timeout(operation: "pairing", after: timeout)
        case let .encryptionFailed(status) where status == 0x06: .peerRemovedPairingInformation
        case let .failedHere(reason): .pairingFailed("\(reason)")
        case let .failedByPeer(reason): .pairingFailed("the peer refused: \(reason)")
        default: .pairingFailed(error.description)
        }
    }
}
