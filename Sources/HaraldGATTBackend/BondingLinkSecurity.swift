import Foundation
import Harald
import HaraldCore
import HaraldSMP
import Logging

/// Why encrypting a link with a key failed.
public enum LinkEncryptionError: Error, Sendable {
    /// The peer has no key for us (Encryption Change, or its host's LTK negative reply, with PIN
    /// or Key Missing, HCI 0x06): it lost or deleted the bond. The link stays up.
    case peerKeyMissing
    /// The peer holds another key: the link dropped with MIC Failure (HCI 0x3D).
    case keysDiffer
    /// Anything else (the link went away, the controller refused, no outcome in time…).
    case failed(BluetoothError)
}

/// What ``BondingLinkSecurity`` needs from one connection as central: the peer's address, the
/// link's encryption state, LE Enable Encryption, and the Security Manager's fixed channel
/// (L2CAP CID 0x0006). The HCI host and the simulator each provide one.
public protocol PairableLink: Sendable {
    /// The peer's address on this connection (it may be a resolvable private address).
    var peerAddress: BluetoothAddress { get }
    /// The peer's identity address when the backend already knows it (an identity it resolved
    /// from a resolvable private address); nil otherwise.
    var peerIdentity: BluetoothAddress? { get }
    /// Our address on this connection (what the pairing functions take as the initiator's).
    func localAddress() async -> BluetoothAddress?
    /// How the link is encrypted now.
    func encryption() async -> LinkEncryption
    /// LE Enable Encryption with `key` (legacy keys with their EDIV and Rand, both 0 for LE Secure
    /// Connections); returns once the link is encrypted.
    func encrypt(with key: SecretKey128, ediv: UInt16, rand: UInt64) async throws(LinkEncryptionError)
    /// The SMP PDUs the peer sends, in order; the stream finishes when the link ends. Read once.
    var securityManagerPDUs: AsyncStream<[UInt8]> { get }
    /// Sends one SMP PDU.
    func sendSecurityManagerPDU(_ pdu: [UInt8]) async throws
}

/// The link security of one connection as central, for the backends that run Harald's own
/// Security Manager (the HCI host, the simulator): encrypts with the bond's key when the peer is
/// bonded and the key is strong enough, pairs otherwise (`SMPInitiator`), keeps the bond store
/// current and applies the `LostBondPolicy` when the peer lost its keys or holds others.
///
/// It owns the link's SMP channel: the PDUs of a pairing under way go to that pairing; outside
/// one, a Security Request from the peripheral makes it secure the link (Core spec Vol 3 Part H
/// §2.4.6: encrypt with the bond when it is strong enough, else pair) and a Pairing Request is
/// refused (Command Not Supported: we are central). One raising runs at a time; whoever asks
/// meanwhile — a refused request, a Security Request, ``pair(timeout:)`` — gets its outcome.
/// Pairing respects Repeated Attempts (a `PairingAttemptLimiter`), and after an SMP timeout the
/// link pairs no more (§3.4).
public actor BondingLinkSecurity: LinkSecurityManager {
    private let link: any PairableLink
    private let configuration: SecurityConfiguration
    private let logger: Logger
    private let clock: any Clock<Duration>
    private let taskStarter: TaskStarter
    private let attempts: PairingAttemptLimiter?
    /// The level the last encryption or pairing gave the link.
    private var level = SecurityLevel.none
    private var bonded = false
    /// Where the peer's PDUs go while a pairing runs; nil between pairings.
    private var pairingPDUs: AsyncStream<[UInt8]>.Continuation?
    /// The raising under way, which later callers join.
    private var raising: Task<Result<LinkSecurity, BluetoothError>, Never>?
    /// True once the link's SMP channel closed (the link is gone).
    private var channelClosed = false
    /// True once a pairing hit the SMP timeout.
    private var smpTimedOut = false

    private init(
        link: any PairableLink, configuration: SecurityConfiguration, logger: Logger, clock: any Clock<Duration>, taskStarter: TaskStarter,
        attempts: PairingAttemptLimiter?
    ) {
        self.link = link
        self.configuration = configuration
        self.logger = logger
        self.clock = clock
        self.taskStarter = taskStarter
        self.attempts = attempts ?? configuration.attempts
    }

    /// The link security of `link`, reading its SMP channel from now on until the link ends.
    ///
    /// - Parameters:
    ///   - link: the connection whose SMP channel it reads and whose encryption it starts.
    ///   - configuration: the pairing settings, the agent and the bond store.
    ///   - logger: where pairing steps and failures are logged.
    ///   - clock: measures the SMP timeout and the Repeated Attempts back-off.
    ///   - attempts: the backend's Repeated Attempts limiter, shared by its links (the
    ///     configuration's when nil).
    ///   - taskStarter: where its channel reader and shared raisings run (a simulation's executor).
    public static func start(
        link: any PairableLink, configuration: SecurityConfiguration, logger: Logger = Logger(label: "harald.security"),
        clock: any Clock<Duration> = ContinuousClock(), taskStarter: TaskStarter = .default, attempts: PairingAttemptLimiter? = nil
    ) -> BondingLinkSecurity {
        let security = BondingLinkSecurity(
            link: link, configuration: configuration, logger: logger, clock: clock, taskStarter: taskStarter, attempts: attempts)
        let incoming = link.securityManagerPDUs
        taskStarter.start { [weak security] in
            for await pdu in incoming {
                guard let security else { return }
                await security.received(pdu)
            }
            await security?.closeChannel()
        }
        return security
    }

    public func currentSecurity() async -> LinkSecurity {
        let encryption = await link.encryption()
        guard encryption.isEncrypted else { return LinkSecurity(level: .none, isBonded: bonded) }
        return LinkSecurity(level: level == .none ? .encrypted : level, isBonded: bonded, keySize: encryption.keySize)
    }

    public func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await joinOrStart { security in await security.encryptOrPair(needing: Self.needed(for: code)) }
    }

    public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await joinOrStart { security in await security.pairResult() }
    }

    /// Runs `work`, or waits for the raising already under way.
    private func joinOrStart(_ work: @escaping @Sendable (BondingLinkSecurity) async -> Result<LinkSecurity, BluetoothError>) async throws(
        BluetoothError
    ) -> LinkSecurity {
        if let raising { return try await raising.value.get() }
        let task = taskStarter.start { await work(self) }
        raising = task
        defer { raising = nil }
        return try await task.value.get()
    }

    // MARK: The SMP channel

    /// A PDU from the peer: to the pairing under way; else a Security Request is acted on and a
    /// Pairing Request refused; anything else outside a pairing is dropped.
    private func received(_ pdu: [UInt8]) async {
        if let pairingPDUs {
            pairingPDUs.yield(pdu)
            return
        }
        guard !smpTimedOut, let code = pdu.first else { return }
        switch code {
        case SMPCode.securityRequest.rawValue:
            guard raising == nil, let request = try? SMPSecurityRequest(decoding: pdu) else { return }
            let wanted: SecurityLevel = request.authReq.contains(.mitm) ? .authenticated : .encrypted
            guard await currentSecurity().level < wanted else { return }
            logger.debug("the peer asks for security", metadata: ["peer": "\(link.peerAddress)", "authReq": "\(request.authReq)"])
            let code: ATTErrorCode = wanted >= .authenticated ? .insufficientAuthentication : .insufficientEncryption
            let (logger, peer) = (logger, link.peerAddress)
            taskStarter.start {
                do throws(BluetoothError) { _ = try await self.raiseSecurity(for: code, timeout: .seconds(30)) } catch {
                    logger.notice("securing the link on the peer's Security Request failed", metadata: ["peer": "\(peer)", "error": "\(error)"])
                }
            }
        case SMPCode.pairingRequest.rawValue:
            // Only a central sends Pairing Request on LE.
            if let refusal = try? SMPPairingFailed(reason: .commandNotSupported).encodedBytes() {
                try? await link.sendSecurityManagerPDU(refusal)
            }
        default:
            break
        }
    }

    private func closeChannel() {
        channelClosed = true
        pairingPDUs?.finish()
    }

    // MARK: Raising

    /// The bond stored for the peer: by the address on this link (identity, last address or
    /// IRK), else by the identity the backend resolved.
    private func storedBond() async throws(BluetoothError) -> Bond? {
        do throws(BondStoreError) {
            if let bond = try await configuration.bonds.bond(resolving: link.peerAddress) { return bond }
            guard let identity = link.peerIdentity else { return nil }
            return try await configuration.bonds.bond(for: identity)
        } catch { throw .backend("the bond store: \(error)") }
    }

    /// Encrypts with the bond's key when that helps, else pairs.
    private func encryptOrPair(needing needed: SecurityLevel) async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) {
            let bond = try await storedBond()
            // Encrypting with the bond's key helps unless the link is encrypted already (then the
            // peer wants more than the bond gives: a stronger pairing).
            if let bond, let key = bond.longTermKey, await !link.encryption().isEncrypted, key.securityLevel >= needed {
                do throws(LinkEncryptionError) {
                    try await link.encrypt(with: key.key, ediv: key.ediv, rand: key.rand)
                    level = bond.securityLevel
                    bonded = true
                    // A peer on a new private address: the bond remembers where it was seen last.
                    if bond.lastAddress != link.peerAddress {
                        do { try await configuration.bonds.save(bond.seen(at: link.peerAddress)) } catch {
                            logger.warning("could not update the bond's last address", metadata: ["peer": "\(link.peerAddress)", "error": "\(error)"])
                        }
                    }
                    return .success(await currentSecurity())
                } catch {
                    switch error {
                    case .peerKeyMissing:
                        logger.notice("the peer lost its bond", metadata: ["peer": "\(link.peerAddress)"])
                        guard configuration.lostBond == .pairAgain else { throw .peerRemovedPairingInformation }
                        try await removeBond(bond)
                    case .keysDiffer:
                        // The peer answered with another key (it paired again since, or is not who
                        // the bond says): the link is gone, so pairing again waits for the next one.
                        logger.notice("the peer holds another key: the link dropped (MIC failure)", metadata: ["peer": "\(link.peerAddress)"])
                        if configuration.lostBond == .pairAgain { try await removeBond(bond) }
                        throw .peerRemovedPairingInformation
                    case .failed(let failure):
                        throw failure
                    }
                }
            }
            return .success(try await pairNow())
        } catch {
            return .failure(error)
        }
    }

    private func removeBond(_ bond: Bond) async throws(BluetoothError) {
        do { _ = try await configuration.bonds.removeBond(for: bond.identityAddress) } catch { throw .backend("the bond store: \(error)") }
    }

    private func pairResult() async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) { return .success(try await pairNow()) } catch { return .failure(error) }
    }

    /// The peer's addresses as the Repeated Attempts limiter knows them.
    private var peerAddresses: [BluetoothAddress] { [link.peerAddress] + (link.peerIdentity.map { [$0] } ?? []) }

    /// Pairs (``SMPInitiator`` on the link's channel), and stores the bond when both sides bond.
    private func pairNow() async throws(BluetoothError) -> LinkSecurity {
        if smpTimedOut { throw .pairingFailed("the SMP timeout passed on this link; pairing needs a new connection") }
        guard !channelClosed else { throw .disconnected(.connectionLost) }
        if let wait = await attempts?.remainingWait(forAny: peerAddresses) { throw .pairingAttemptTooSoon(retryAfter: wait) }
        guard let ours = await link.localAddress() else { throw .disconnected(.connectionLost) }
        let identity: LocalIdentity?
        do { identity = try await configuration.bonds.localIdentity() } catch { throw .backend("the bond store: \(error)") }
        let (pdus, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(64))
        pairingPDUs = continuation
        let link = self.link
        let initiator = SMPInitiator(
            bearer: ChannelBearer(link: link, incoming: pdus), configuration: configuration.pairing,
            addresses: PairingAddresses(initiator: ours, responder: link.peerAddress), agent: configuration.agent, clock: clock,
            localKeys: identity.map { LocalPairingKeys(identityResolvingKey: $0.identityResolvingKey, identityAddress: $0.address) },
            taskStarter: taskStarter
        ) { key, ediv, rand in
            do throws(LinkEncryptionError) { try await link.encrypt(with: key, ediv: ediv, rand: rand) } catch {
                switch error {
                case .peerKeyMissing: throw PairingError.encryptionFailed(0x06)
                case .keysDiffer: throw PairingError.linkLost("the link dropped with MIC failure")
                case .failed(let failure): throw PairingError.linkLost("encrypting the link failed: \(failure)")
                }
            }
        }
        let outcome: PairingOutcome
        do {
            outcome = try await initiator.pair()
            endPairing()
        } catch {
            endPairing()
            if error == .timedOut { smpTimedOut = true }
            if error.countsAsFailedAttempt { await attempts?.recordFailure(ofAny: peerAddresses) }
            throw Self.translate(error, timeout: configuration.pairing.timeout)
        }
        await attempts?.recordSuccess(ofAny: peerAddresses + (outcome.peerIdentityAddress.map { [$0] } ?? []))
        level = outcome.method.securityLevel(keySize: outcome.keySize)
        bonded = false
        if outcome.isBonding, let key = outcome.longTermKey { await storeBond(outcome, key: key) }
        return await currentSecurity()
    }

    /// Stores the bond a pairing made, under the peer's identity address.
    private func storeBond(_ outcome: PairingOutcome, key: LongTermKey) async {
        let peer = link.peerAddress
        let candidates = [outcome.peerIdentityAddress, link.peerIdentity, peer].compactMap(\.self)
        guard let identityAddress = candidates.first(where: \.isIdentity) else {
            logger.warning("the peer gave no identity address: the bond is not kept", metadata: ["peer": "\(peer)"])
            return
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
    }

    private func endPairing() {
        pairingPDUs?.finish()
        pairingPDUs = nil
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
        case let .encryptionKeySize(offered, required):
            .pairingFailed("the peer offers an encryption key of \(offered) octets, \(required) are required (Encryption Key Size, 0x06)")
        case let .encryptionFailed(status) where status == 0x06: .peerRemovedPairingInformation
        case let .failedHere(reason): .pairingFailed("\(reason)")
        case let .failedByPeer(reason): .pairingFailed("the peer refused: \(reason)")
        default: .pairingFailed(error.description)
        }
    }
}

/// A pairing's bearer: the PDUs routed to it, and the link's channel to send on.
private struct ChannelBearer: SMPBearer {
    let link: any PairableLink
    let incoming: AsyncStream<[UInt8]>
    func send(_ pdu: [UInt8]) async throws { try await link.sendSecurityManagerPDU(pdu) }
}
