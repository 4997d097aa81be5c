import Foundation
import Harald
import HaraldCore
import HaraldGATTBackend
import HaraldHCI
import HaraldSMP
import Logging

/// The HCI backend's name for ``SecurityConfiguration`` (the same type: the simulator takes it too).
public typealias HCISecurityConfiguration = SecurityConfiguration

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

    init(
        link: LEConnection, configuration: HCISecurityConfiguration, logger: Logger,
        pair: @escaping @Sendable () async throws(PairingError) -> PairingOutcome
    ) {
        self.link = link
        self.configuration = configuration
        self.logger = logger
        self.pair = pair
    }

    func currentSecurity() async -> LinkSecurity {
        let parameters = link.parameters
        guard parameters.isEncrypted else { return LinkSecurity(level: .none, isBonded: bonded) }
        return LinkSecurity(level: level == .none ? .encrypted : level, isBonded: bonded, keySize: parameters.keySize.map(Int.init))
    }

    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        let bond: Bond?
        do { bond = try await configuration.bonds.bond(resolving: link.peer) } catch { throw .backend("the bond store: \(error)") }
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

    func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity { try await pairNow() }

    /// Pairs, and stores the bond when both sides asked to bond.
    private func pairNow() async throws(BluetoothError) -> LinkSecurity {
        let outcome: PairingOutcome
        do { outcome = try await pair() } catch { throw Self.translate(error) }
        level = outcome.method.securityLevel(keySize: outcome.keySize)
        if outcome.isBonding, let key = outcome.longTermKey {
            let identity = outcome.peerIdentityAddress ?? link.peer
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
