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
///
/// It owns the link's SMP channel: the PDUs of a pairing under way go to that pairing, and a
/// Security Request from the peripheral outside one makes it secure the link (Core spec Vol 3
/// Part H §2.4.6: encrypt with the bond's key when it is strong enough, else pair). One raising
/// runs at a time; whoever asks meanwhile (a refused request, a Security Request) gets its outcome.
actor HCILinkSecurity: LinkSecurityManager {
    /// Runs the Security Manager's pairing as initiator over the given bearer (the link's channel
    /// 0x0006), returning what it produced (the link is encrypted with the new key when it returns).
    typealias Pair = @Sendable (any SMPBearer) async throws(PairingError) -> PairingOutcome

    private let link: LEConnection
    private let configuration: HCISecurityConfiguration
    private let pair: Pair
    private let logger: Logger
    private var level = SecurityLevel.none
    private var bonded = false
    /// Where the peer's PDUs go while a pairing runs; nil between pairings.
    private var pairingPDUs: AsyncStream<[UInt8]>.Continuation?
    /// The raising under way, whose outcome every caller meanwhile shares.
    private var raising: Task<Result<LinkSecurity, BluetoothError>, Never>?
    /// True once the link's SMP channel closed (the link is gone).
    private var channelClosed = false
    /// True once a pairing hit the SMP timeout: no more SMP on this link (Core spec Vol 3 Part H §3.4).
    private var smpTimedOut = false

    private init(link: LEConnection, configuration: HCISecurityConfiguration, logger: Logger, pair: @escaping Pair) {
        self.link = link
        self.configuration = configuration
        self.logger = logger
        self.pair = pair
    }

    /// The link security of `link`, reading its SMP channel from now on until the link closes.
    static func start(link: LEConnection, configuration: HCISecurityConfiguration, logger: Logger, pair: @escaping Pair) -> HCILinkSecurity {
        let security = HCILinkSecurity(link: link, configuration: configuration, logger: logger, pair: pair)
        let incoming = link.securityManager.incoming
        Task { [weak security] in
            for await pdu in incoming {
                guard let security else { return }
                await security.received(pdu)
            }
            await security?.closeChannel()
        }
        return security
    }

    func currentSecurity() async -> LinkSecurity {
        let parameters = link.parameters
        guard parameters.isEncrypted else { return LinkSecurity(level: .none, isBonded: bonded) }
        return LinkSecurity(level: level == .none ? .encrypted : level, isBonded: bonded, keySize: parameters.keySize.map(Int.init))
    }

    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        if let raising { return try await raising.value.get() }
        let task = Task { await self.raiseNow(for: code) }
        raising = task
        defer { raising = nil }
        return try await task.value.get()
    }

    // MARK: The SMP channel

    /// A PDU from the peer: to the pairing under way, else a Security Request is acted on and a
    /// Pairing Request refused (we are central); anything else outside a pairing is dropped.
    private func received(_ pdu: [UInt8]) async {
        if let pairingPDUs {
            pairingPDUs.yield(pdu)
            return
        }
        guard !smpTimedOut, let code = pdu.first else { return }
        switch code {
        case SMPCode.securityRequest.rawValue:
            guard raising == nil, let request = try? SMPSecurityRequest(decoding: pdu) else { return }
            let wanted = Self.level(for: request.authReq)
            let current = await currentSecurity()
            guard current.level < wanted else { return }
            logger.debug("the peer asks for security", metadata: ["peer": "\(link.peer)", "authReq": "\(request.authReq)"])
            let code: ATTErrorCode = wanted >= .authenticated ? .insufficientAuthentication : .insufficientEncryption
            Task {
                do throws(BluetoothError) { _ = try await self.raiseSecurity(for: code, timeout: .seconds(30)) } catch {
                    self.logger.notice("securing the link on the peer's Security Request failed", metadata: ["peer": "\(self.link.peer)", "error": "\(error)"])
                }
            }
        case SMPCode.pairingRequest.rawValue:
            // Only a central sends Pairing Request on LE.
            if let refusal = try? SMPPairingFailed(reason: .commandNotSupported).encodedBytes() {
                try? await link.securityManager.send(refusal)
            }
        default:
            break
        }
    }

    private func closeChannel() {
        channelClosed = true
        pairingPDUs?.finish()
    }

    /// The level a Security Request's AuthReq asks for.
    static func level(for authReq: AuthReq) -> SecurityLevel {
        authReq.contains(.mitm) ? .authenticated : .encrypted
    }

    // MARK: Raising

    /// Encrypts with the bond's key when that helps, else pairs.
    private func raiseNow(for code: ATTErrorCode) async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) {
            return .success(try await encryptOrPair(for: code))
        } catch {
            return .failure(error)
        }
    }

    private func encryptOrPair(for code: ATTErrorCode) async throws(BluetoothError) -> LinkSecurity {
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
                switch error {
                case .encryptionFailed(let status) where status == .pinOrKeyMissing:
                    logger.notice("the peer lost its bond", metadata: ["peer": "\(link.peer)"])
                    guard configuration.lostBond == .pairAgain else { throw .peerRemovedPairingInformation }
                    do { try await configuration.bonds.removeBond(for: bond.identityAddress) } catch { throw .backend("the bond store: \(error)") }
                case .disconnected(let reason) where reason == .connectionTerminatedDueToMICFailure:
                    // The peer answered with another key (it paired again since, or is not who
                    // the bond says): the link is gone, so pairing again waits for the next one.
                    logger.notice("the peer holds another key: the link dropped (MIC failure)", metadata: ["peer": "\(link.peer)"])
                    if configuration.lostBond == .pairAgain {
                        do { try await configuration.bonds.removeBond(for: bond.identityAddress) } catch { throw .backend("the bond store: \(error)") }
                    }
                    throw .peerRemovedPairingInformation
                default:
                    throw HCICentralBackend.translate(error)
                }
            }
        }
        return try await pairNow()
    }

    func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity { try await pairNow() }

    /// Pairs, and stores the bond when both sides asked to bond.
    private func pairNow() async throws(BluetoothError) -> LinkSecurity {
        guard !smpTimedOut else { throw Self.translate(.timedOut) }
        guard !channelClosed else { throw .disconnected(.connectionLost) }
        let (pdus, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(64))
        pairingPDUs = continuation
        let outcome: PairingOutcome
        do {
            outcome = try await pair(L2CAPSMPBearer(channel: link.securityManager, incoming: pdus))
            endPairing()
        } catch {
            endPairing()
            if error == .timedOut { smpTimedOut = true }
            throw Self.translate(error)
        }
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

    private func endPairing() {
        pairingPDUs?.finish()
        pairingPDUs = nil
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
