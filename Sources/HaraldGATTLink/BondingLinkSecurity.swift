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
    /// Ends the link (HCI Disconnect with Authentication Failure, 0x05): what happens to a link
    /// whose bonded peer did not encrypt with the bond's key, so it never goes on in clear.
    func disconnect() async
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
///
/// Bonds are guarded (``BondAdmission``, run inside the pairing so a refusal is a Pairing
/// Failed): a claimed identity must be proven by the connection, another device's bond is never
/// overwritten, and a weaker pairing replaces a bond only if the agent confirms. A bonded peer is
/// encrypted before its first ATT request (``encryptBondedPeerFirst()``); when it cannot encrypt
/// with the bond's key the link ends. A peer's refusals and Security Requests make it pair at
/// most once per link, and never when the IO capabilities cannot give the level asked.
public actor BondingLinkSecurity: LinkSecurityManager {
    /// PDUs from the peer that wait for our pairing to take them; later ones are dropped.
    static let pairingPDUBufferLimit = 64

    private let link: any PairableLink
    private let configuration: SecurityConfiguration
    private let logger: Logger
    private let clock: any Clock<Duration>
    private let taskStarter: TaskStarter
    private let attempts: PairingAttemptLimiter?
    /// The link's serial domain, whose executor this and its pairings run on (see `SerialDomain`).
    package nonisolated let serialDomain: any Actor
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }
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
    /// True once a refusal or a Security Request made this link pair: it does not pair again
    /// for the peer (one raise per connection).
    private var pairedOnRequest = false

    private init(
        link: any PairableLink, configuration: SecurityConfiguration, logger: Logger, clock: any Clock<Duration>, taskStarter: TaskStarter,
        attempts: PairingAttemptLimiter?, serialDomain: any Actor
    ) {
        self.serialDomain = serialDomain
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
    ///   - serialDomain: the link's serial domain (the HCI host over HCI), shared with the link's
    ///     GATT client; nil gives the link's security a domain of its own.
    public static func start(
        link: any PairableLink, configuration: SecurityConfiguration, logger: Logger = Logger(label: "harald.security"),
        clock: any Clock<Duration> = ContinuousClock(), taskStarter: TaskStarter = .default, attempts: PairingAttemptLimiter? = nil,
        serialDomain: (any Actor)? = nil
    ) -> BondingLinkSecurity {
        let security = BondingLinkSecurity(
            link: link, configuration: configuration, logger: logger, clock: clock, taskStarter: taskStarter, attempts: attempts,
            serialDomain: serialDomain ?? SerialDomain())
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
        let encrypted = await link.encryption().isEncrypted
        // Insufficient Authentication on an encrypted link leaves no doubt: MITM protection is
        // needed (on a link in clear it may only mean "not paired", Core spec Vol 3 Part C §10.3.1).
        let needsMITM = code == .insufficientAuthentication && encrypted
        return try await joinOrStart { security in await security.encryptOrPair(needing: Self.needed(for: code), mitm: needsMITM) }
    }

    /// Encrypts the link with the bond's key when the peer is bonded, before anything is read
    /// from it (BLESA): an impostor at a bonded device's address that has no key (PIN or Key
    /// Missing, HCI 0x06) or another key (MIC Failure, 0x3D) gets its link ended, with
    /// `BluetoothError.peerRemovedPairingInformation`, under either `LostBondPolicy` —
    /// except that `.pairAgain` pairs again with MITM protection after Key Missing, and on the
    /// first connection after a MIC Failure (`Bond.peerRejectedKey`). Does nothing
    /// for a peer without a bond, on an encrypted link, or when
    /// `SecurityConfiguration.encryptsBondedPeersFirst` is off.
    public func encryptBondedPeerFirst() async throws(BluetoothError) {
        guard configuration.encryptsBondedPeersFirst else {
            logger.warning(
                "encrypting bonded peers first is off: an impostor at a bonded address is served until a request is refused",
                metadata: ["peer": "\(link.peerAddress)"])
            return
        }
        _ = try await joinOrStart { security in await security.encryptWithBondFirst() }
    }

    private func encryptWithBondFirst() async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) {
            guard let bond = try await storedBond(), let key = bond.longTermKey, await !link.encryption().isEncrypted else {
                return .success(await currentSecurity())
            }
            if bond.peerRejectedKey { return .success(try await pairAgainAfterRejectedKey(bond)) }
            logger.debug("encrypting with the bond before the first request", metadata: ["peer": "\(link.peerAddress)"])
            return .success(try await encrypt(with: bond, key: key))
        } catch {
            return .failure(error)
        }
    }

    public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await joinOrStart { security in await security.pairResult() }
    }

    /// Runs `work`, or waits for the raising already under way.
    private func joinOrStart(_ work: @escaping @Sendable (BondingLinkSecurity) async -> Result<LinkSecurity, BluetoothError>) async throws(BluetoothError)
        -> LinkSecurity
    {
        if let raising { return try await raising.value.get() }
        // The raising clears itself before it ends, so whoever waited for it and looks again
        // (a Security Request that came during it) never joins a raising that is over.
        let task = taskStarter.start { () -> Result<LinkSecurity, BluetoothError> in
            let result = await work(self)
            await self.endRaising()
            return result
        }
        raising = task
        return try await task.value.get()
    }

    private func endRaising() { raising = nil }

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
            guard let request = try? SMPSecurityRequest(decoding: pdu) else { return }
            taskStarter.start { await self.actOnSecurityRequest(request.authReq) }
        case SMPCode.pairingRequest.rawValue:
            // Only a central sends Pairing Request on LE.
            if let refusal = try? SMPPairingFailed(reason: .commandNotSupported).encodedBytes() {
                try? await link.sendSecurityManagerPDU(refusal)
            }
        default:
            break
        }
    }

    /// A Security Request (Core spec Vol 3 Part H §2.4.6): once any raising under way (such as
    /// encrypting a bonded peer at connection) is over, encrypts with the bond when it is strong
    /// enough, else pairs — at most once per link, however often the peer asks.
    private func actOnSecurityRequest(_ authReq: AuthReq) async {
        if let raising { _ = await raising.value }
        let wanted: SecurityLevel = authReq.contains(.mitm) ? .authenticated : .encrypted
        guard await currentSecurity().level < wanted else { return }
        logger.debug("the peer asks for security", metadata: ["peer": "\(link.peerAddress)", "authReq": "\(authReq)"])
        do throws(BluetoothError) {
            _ = try await joinOrStart { security in await security.encryptOrPair(needing: wanted, mitm: wanted >= .authenticated) }
        } catch {
            logger.notice("securing the link on the peer's Security Request failed", metadata: ["peer": "\(link.peerAddress)", "error": "\(error)"])
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

    /// Encrypts with the bond's key when that helps, else pairs (at most once per link for the
    /// peer, with MITM protection when `mitm`).
    private func encryptOrPair(needing needed: SecurityLevel, mitm: Bool) async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) {
            let bond = try await storedBond()
            // Encrypting with the bond's key comes first whenever the link is not encrypted yet
            // (on an encrypted link the peer wants more than the bond gives: a stronger pairing).
            // Insufficient Authentication is also what a peer that lost its key answers (Core Vol 3
            // Part C §10.3), so only the encryption tells whether the bond still holds; when it
            // does but gives less than asked, the pairing below follows on the encrypted link.
            if let bond, bond.peerRejectedKey, await !link.encryption().isEncrypted {
                return .success(try await pairAgainAfterRejectedKey(bond))
            }
            if let bond, let key = bond.longTermKey, await !link.encryption().isEncrypted {
                let secured = try await encrypt(with: bond, key: key)
                if secured.level >= needed { return .success(secured) }
            }
            if mitm, configuration.pairing.ioCapability == .noInputNoOutput {
                throw .securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(configuration.pairing.ioCapability)", needed: needed))
            }
            // Already encrypted at the level asked (the peer refused before it saw the encryption
            // change): the request is worth one more try, a new pairing is not.
            if !mitm, await link.encryption().isEncrypted, await currentSecurity().level >= needed {
                return .success(await currentSecurity())
            }
            return .success(try await pairNow(requiringMITM: mitm, onRequest: true))
        } catch {
            return .failure(error)
        }
    }

    /// Encrypts with the bond's key. A peer without that key, or with another, is not the bonded
    /// device as far as this link can tell: the link ends (`LostBondPolicy.pairAgain` first
    /// pairs again with MITM protection after Key Missing, and marks the bond after a MIC
    /// Failure so the next connection pairs, with MITM protection).
    private func encrypt(with bond: Bond, key: LongTermKey) async throws(BluetoothError) -> LinkSecurity {
        do throws(LinkEncryptionError) {
            try await link.encrypt(with: key.key, ediv: key.ediv, rand: key.rand)
        } catch {
            switch error {
            case .peerKeyMissing:
                logger.notice("the peer lost its bond (or it is not the bonded device): it has no key", metadata: ["peer": "\(link.peerAddress)"])
                guard configuration.lostBond == .pairAgain else {
                    await link.disconnect()
                    throw .peerRemovedPairingInformation
                }
                // The old bond stays until a pairing at least as strong replaces it.
                do throws(BluetoothError) { return try await pairNow(requiringMITM: true, onRequest: true) } catch {
                    await link.disconnect()
                    throw error
                }
            case .keysDiffer:
                // The peer answered with another key (it paired again since, or is not who the
                // bond says): the link is gone, so pairing again waits for the next one. The bond
                // stays, marked, so that pairing needs MITM protection and must be at least as
                // strong to replace it: deleting it would let a Just Works impostor in.
                logger.notice("the peer holds another key: the link dropped (MIC failure)", metadata: ["peer": "\(link.peerAddress)"])
                await link.disconnect()
                if configuration.lostBond == .pairAgain { try await save(bond.markedPeerRejectedKey()) }
                throw .peerRemovedPairingInformation
            case .failed(let failure):
                // Never a link in clear to a bonded peer that looks secured.
                await link.disconnect()
                throw failure
            }
        }
        level = bond.securityLevel
        bonded = true
        // A peer on a new private address: the bond remembers where it was seen last.
        if bond.lastAddress != link.peerAddress {
            do { try await configuration.bonds.save(bond.seen(at: link.peerAddress)) } catch {
                logger.warning("could not update the bond's last address", metadata: ["peer": "\(link.peerAddress)", "error": "\(error)"])
            }
        }
        return await currentSecurity()
    }

    private func save(_ bond: Bond) async throws(BluetoothError) {
        do { try await configuration.bonds.save(bond) } catch { throw .backend("the bond store: \(error)") }
    }

    /// A connection to a peer that rejected the bond's key on an earlier link (MIC Failure under
    /// `LostBondPolicy.pairAgain`): pairs with MITM protection instead of encrypting with the
    /// rejected key; the bond rules let only a pairing at least as strong replace the marked
    /// bond. Under `.fail` (a bond file marked by another configuration) the link ends as for
    /// any lost bond.
    private func pairAgainAfterRejectedKey(_ bond: Bond) async throws(BluetoothError) -> LinkSecurity {
        guard configuration.lostBond == .pairAgain else {
            await link.disconnect()
            throw .peerRemovedPairingInformation
        }
        logger.notice("the peer rejected the bond's key before: pairing again with MITM protection", metadata: ["peer": "\(link.peerAddress)"])
        do throws(BluetoothError) { return try await pairNow(requiringMITM: true, onRequest: true) } catch {
            await link.disconnect()
            throw error
        }
    }

    private func pairResult() async -> Result<LinkSecurity, BluetoothError> {
        do throws(BluetoothError) { return .success(try await pairNow(requiringMITM: false, onRequest: false)) } catch { return .failure(error) }
    }

    /// The peer's addresses as the Repeated Attempts limiter knows them.
    private var peerAddresses: [BluetoothAddress] { [link.peerAddress] + (link.peerIdentity.map { [$0] } ?? []) }

    /// Pairs (`SMPInitiator` on the link's channel), and stores the bond when both sides bond.
    /// With `requiringMITM` the Pairing Request asks for MITM protection and a pairing that
    /// cannot give it fails (Authentication Requirements); with IO capabilities that never can,
    /// nothing is sent. `onRequest`: the peer's refusal or Security Request (or a lost bond)
    /// asked for it, which happens once per link; an explicit ``pair(timeout:)`` is not counted.
    private func pairNow(requiringMITM: Bool, onRequest: Bool) async throws(BluetoothError) -> LinkSecurity {
        if smpTimedOut { throw .pairingFailed("the SMP timeout passed on this link; pairing needs a new connection") }
        guard !channelClosed else { throw .disconnected(.connectionLost) }
        if onRequest, pairedOnRequest { throw .securityNotRaised(.alreadyRaisedOnThisLink(current: await currentSecurity().level)) }
        var pairing = configuration.pairing
        if requiringMITM {
            guard pairing.ioCapability != .noInputNoOutput else {
                throw .securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(pairing.ioCapability)", needed: .authenticated))
            }
            pairing.authReq.insert(.mitm)
        }
        if let wait = await attempts?.remainingWait(forAny: peerAddresses) { throw .pairingAttemptTooSoon(retryAfter: wait) }
        guard let ours = await link.localAddress() else { throw .disconnected(.connectionLost) }
        // From here an SMP procedure starts: this link's one pairing on request.
        if onRequest { pairedOnRequest = true }
        let identity: LocalIdentity?
        do { identity = try await configuration.bonds.localIdentity() } catch { throw .backend("the bond store: \(error)") }
        let (pdus, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(Self.pairingPDUBufferLimit))
        pairingPDUs = continuation
        let link = self.link
        let admission = BondAdmission(bonds: configuration.bonds, agent: configuration.agent)
        let knownIdentity = link.peerIdentity
        let initiator = SMPInitiator(
            bearer: ChannelBearer(link: link, incoming: pdus), configuration: pairing,
            addresses: PairingAddresses(initiator: ours, responder: link.peerAddress), agent: configuration.agent, clock: clock,
            localKeys: identity.map { LocalPairingKeys(identityResolvingKey: $0.identityResolvingKey, identityAddress: $0.address) },
            taskStarter: taskStarter, checkPeerKeys: { keys in await admission.check(keys, knownIdentity: knownIdentity) },
            serialDomain: serialDomain
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
            if case .keysRefused(_, let refusal) = error {
                // The link is encrypted with the new key, but its peer is not who it claims or
                // would weaken a bond: it ends rather than go on as a half-trusted link.
                logger.warning("the peer's keys were refused; nothing stored", metadata: ["peer": "\(link.peerAddress)", "why": "\(refusal)"])
                await link.disconnect()
            }
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
        guard
            let identityAddress = BondAdmission.bondIdentity(
                distributed: outcome.peerIdentityAddress, knownIdentity: link.peerIdentity, connectedFrom: peer)
        else {
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
        case let .keysRefused(_, refusal): .bondRefused(refusal)
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
