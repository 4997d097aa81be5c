import HaraldCodec
import HaraldCore

/// The pairing procedure of the initiator (the central) over one SMP bearer (Core spec Vol 3
/// Part H §2.3): the Pairing Feature Exchange (phase 1), key generation by LE Secure Connections
/// or LE legacy pairing (phase 2), then the Transport Specific Key Distribution (phase 3).
///
/// It knows no transport: PDUs go through the ``SMPBearer``, and encrypting the link is the
/// `encrypt` closure's job (LE Enable Encryption with the key, EDIV and Rand it is given,
/// returning once the Encryption Change reports success; throw ``PairingError`` to report a
/// failure, any other error counts as a lost link).
///
/// Every wait, for a PDU, for the person through the `PairingAgent` or for the encryption,
/// is bounded by the Security Manager Timer (Core spec Vol 3 Part H §3.4): it starts with the
/// procedure and restarts only when a PDU of the procedure goes out or the PDU the procedure
/// expects comes in; a PDU that is skipped (a Security Request, a Keypress Notification) leaves it
/// running. Once it has run out the initiator is dead: it sends nothing more on the bearer (not
/// even Pairing Failed), and ``pair()`` fails with ``PairingError/timedOut`` until the link is
/// replaced.
///
/// The peer's public key is refused (Pairing Failed, DHKey Check Failed) when its X coordinate is
/// ours (CVE-2020-26558) or it is the spec's debug key (unless
/// ``PairingConfiguration/acceptsDebugKeys``); a Pairing Response offering keys shorter than the
/// configuration requires fails with ``PairingError/encryptionKeySize(offered:required:)``.
public actor SMPInitiator {
    /// Encrypts the link: the key (the LTK of LE Secure Connections, or legacy pairing's STK), the
    /// EDIV and the Rand (both 0 here).
    public typealias Encrypt = @Sendable (_ key: SecretKey128, _ ediv: UInt16, _ rand: UInt64) async throws -> Void

    let bearer: any SMPBearer
    let configuration: PairingConfiguration
    let addresses: PairingAddresses
    let agent: any PairingAgent
    let clock: any Clock<Duration>
    let localKeys: LocalPairingKeys?
    let randomness: PairingRandomness
    let encrypt: Encrypt
    /// Vets the responder's keys before ours go out (see ``PeerKeysCheck``); nil keeps them all.
    let checkPeerKeys: PeerKeysCheck?

    let inbox: SMPInbox
    /// The link's serial domain, whose executor the pairing runs on (see `SerialDomain`).
    package nonisolated let serialDomain: any Actor
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }
    /// Where its background work runs (a simulation's executor, in virtual time).
    let taskStarter: TaskStarter
    /// True once the SMP timeout passed: nothing more is sent on this bearer.
    private(set) var isDead = false
    /// True while ``pair()`` runs.
    private var isPairing = false
    /// True during Passkey Entry, when a Keypress Notification may arrive and is ignored.
    var acceptsKeypressNotifications = false
    /// Measures the Security Manager Timer.
    private let stopwatch: Stopwatch
    /// When (on ``stopwatch``) the Security Manager Timer last (re)started.
    private var timerStartedAt: Duration = .zero
    /// True once the peer's public key turned out to be the debug key (accepted by the
    /// configuration): the outcome is then never a bond.
    var peerUsedDebugKey = false

    /// - Parameters:
    ///   - bearer: the link's SMP channel (L2CAP fixed channel 0x0006).
    ///   - configuration: our IO capabilities, the authentication we require and the keys we ask for.
    ///   - addresses: both devices' addresses on this link (we are the initiator).
    ///   - agent: answers what pairing asks the user: passkeys, numeric comparison, confirmation.
    ///   - clock: measures the SMP timeout (30 s per step, Core spec Vol 3 Part H §3.4).
    ///   - localKeys: our IRK and identity address (and CSRK), distributed when the responder
    ///     accepts them; without them we offer no IdKey (nor SignKey without a CSRK).
    ///   - randomness: nonces, key pair and passkeys; ``PairingRandomness/system`` unless testing.
    ///   - taskStarter: where its timers and its reader of the bearer run (the simulation's
    ///     executor in a simulation).
    ///   - checkPeerKeys: decides whether the responder's distributed keys may be kept, before
    ///     this side distributes its own; a refusal sends Pairing Failed and fails the pairing
    ///     with ``PairingError/keysRefused(_:_:)``. Nil accepts them.
    ///   - encrypt: starts encryption with the key pairing produced and returns once the link is
    ///     encrypted (see ``Encrypt``).
    ///   - serialDomain: the actor whose executor the pairing runs on: its link's serial domain,
    ///     shared with the link's other engines. Nil gives the pairing a domain of its own.
    public init(
        bearer: any SMPBearer, configuration: PairingConfiguration, addresses: PairingAddresses,
        agent: any PairingAgent, clock: any Clock<Duration> = ContinuousClock(), localKeys: LocalPairingKeys?,
        randomness: PairingRandomness = .system, taskStarter: TaskStarter = .default, checkPeerKeys: PeerKeysCheck? = nil,
        serialDomain: (any Actor)? = nil, encrypt: @escaping Encrypt
    ) {
        let serialDomain = serialDomain ?? SerialDomain()
        self.serialDomain = serialDomain
        self.inbox = SMPInbox(clock: clock, starter: taskStarter, serialDomain: serialDomain)
        self.taskStarter = taskStarter
        self.bearer = bearer
        self.configuration = configuration
        self.addresses = addresses
        self.agent = agent
        self.clock = clock
        self.localKeys = localKeys
        self.randomness = randomness
        self.encrypt = encrypt
        self.checkPeerKeys = checkPeerKeys
        self.stopwatch = Stopwatch(clock)
    }

    // MARK: - The Security Manager Timer (§3.4)

    /// Restarts the timer: the procedure started, sent a PDU, or received the PDU it expected.
    func restartTimer() { timerStartedAt = stopwatch.elapsed }

    /// What is left of the timer; nil once it has run out (the initiator is then dead).
    private func timeLeft() -> Duration? {
        let left = configuration.timeout - (stopwatch.elapsed - timerStartedAt)
        guard left > .zero else {
            isDead = true
            return nil
        }
        return left
    }

    /// Runs the whole procedure: on return the link is encrypted and the keys the two devices
    /// agreed on have been exchanged.
    ///
    /// A Pairing Failed from the peer ends it with ``PairingError/failedByPeer(_:)``; a failure
    /// here sends Pairing Failed and ends with ``PairingError/failedHere(_:)``; the bearer's
    /// stream finishing (or the calling task being cancelled) ends it with
    /// ``PairingError/linkLost(_:)``.
    ///
    /// Make one initiator per attempt: a second call while one runs fails at once with
    /// ``PairingError/failedHere(_:)`` (Unspecified Reason) and sends nothing.
    public func pair() async throws(PairingError) -> PairingOutcome {
        guard !isDead else { throw .timedOut }
        guard !isPairing else { throw .failedHere(.unspecifiedReason) }
        isPairing = true
        defer { isPairing = false }
        PairingWarnings.shared.noteUse(of: configuration, role: "initiator")
        restartTimer()
        await inbox.start(bearer.incoming)

        let exchange = try await exchangeFeatures()
        var keys: PhaseTwoKeys
        if exchange.method.isSecureConnections {
            let ltk = try await generateSecureConnectionsKey(exchange)
            try await encryptLink(with: ltk)
            keys = PhaseTwoKeys(
                longTermKey: LongTermKey(
                    key: ltk, keySize: exchange.keySize, isAuthenticated: exchange.countsAsAuthenticated,
                    isSecureConnections: true),
                shortTermKey: nil)
        } else {
            let stk = try await generateShortTermKey(exchange)
            try await encryptLink(with: stk)
            keys = PhaseTwoKeys(longTermKey: nil, shortTermKey: stk)
        }
        let distributed = try await distributeKeys(exchange)
        if let peerLTK = distributed.peerLongTermKey { keys.longTermKey = peerLTK }
        return PairingOutcome(
            longTermKey: keys.longTermKey, shortTermKey: keys.shortTermKey,
            localLongTermKey: distributed.localLongTermKey,
            peerIdentityResolvingKey: distributed.peerIdentityResolvingKey,
            peerIdentityAddress: distributed.peerIdentityAddress, peerSignatureKey: distributed.peerSignatureKey,
            method: exchange.method, keySize: exchange.keySize,
            isBonding: exchange.request.authReq.isBonding && exchange.response.authReq.isBonding, usedDebugKey: peerUsedDebugKey)
    }

    private struct PhaseTwoKeys {
        var longTermKey: LongTermKey?
        var shortTermKey: SecretKey128?
    }

    // MARK: - Sending and receiving

    /// The SMP MTU we decode with: 65 when we support LE Secure Connections, else 23.
    private var mtu: Int {
        configuration.authReq.contains(.secureConnections) ? SecurityManager.secureConnectionsMTU : SecurityManager.legacyMTU
    }

    /// Sends one PDU and returns the bytes sent (Pairing Request/Response feed `c1` as sent).
    @discardableResult
    func send(_ pdu: some SMPPDUCodable) async throws(PairingError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try pdu.encodedBytes()
        } catch {
            throw await fail(.unspecifiedReason)
        }
        try await sendBytes(bytes)
        return bytes
    }

    private func sendBytes(_ bytes: [UInt8]) async throws(PairingError) {
        guard !isDead, timeLeft() != nil else { throw .timedOut }
        do {
            try await bearer.send(bytes)
        } catch {
            throw .linkLost("sending an SMP PDU failed: \(error)")
        }
        restartTimer()
    }

    /// Ends the procedure from this side: sends Pairing Failed with `reason` (unless the timeout
    /// passed), and returns the error to throw.
    func fail(_ reason: PairingFailureReason) async -> PairingError {
        await fail(with: .failedHere(reason))
    }

    /// Ends the procedure from this side with `error`: sends Pairing Failed with its
    /// ``PairingError/reasonSentHere`` (unless the timeout passed), and returns it to throw.
    func fail(with error: PairingError) async -> PairingError {
        if !isDead, let reason = error.reasonSentHere, let bytes = try? SMPPairingFailed(reason: reason).encodedBytes() {
            try? await bearer.send(bytes)
        }
        return error
    }

    /// The next PDU of the procedure, decoded, with its wire bytes.
    ///
    /// Pairing Failed from the peer ends the procedure; Security Request (and Keypress
    /// Notification during Passkey Entry) is skipped without restarting the Security Manager
    /// Timer; a PDU that does not decode is answered with Pairing Failed and the reason its
    /// decoding error maps to. The PDU returned restarts the timer (a PDU of another type than
    /// the one expected fails the procedure anyway).
    func receive() async throws(PairingError) -> (pdu: SMPPDU, bytes: [UInt8]) {
        while true {
            guard !isDead, let left = timeLeft() else { throw .timedOut }
            let bytes: [UInt8]
            do {
                bytes = try await inbox.nextPDU(within: left)
            } catch {
                if case .timedOut = error { isDead = true }
                throw error
            }
            let pdu: SMPPDU
            do {
                pdu = try SMPPDU(decoding: bytes, mtu: mtu)
            } catch {
                throw await fail(error.pairingFailureReason)
            }
            switch pdu {
            case .pairingFailed(let failed): throw .failedByPeer(failed.reason)
            case .securityRequest: continue
            case .keypressNotification where acceptsKeypressNotifications: continue
            default:
                restartTimer()
                return (pdu, bytes)
            }
        }
    }

    /// The next PDU, which must be a `T`; any other is out of order and fails the procedure
    /// (Unspecified Reason).
    func expect<T: SMPPDUCodable>(_ type: T.Type) async throws(PairingError) -> T {
        let (pdu, _) = try await receive()
        guard let expected = pdu.as(T.self) else { throw await fail(.unspecifiedReason) }
        return expected
    }

    /// Asks the agent (the person), within what is left of the Security Manager Timer.
    func ask<T: Sendable>(_ question: @escaping @Sendable (any PairingAgent) async -> T) async throws(PairingError) -> T {
        let agent = agent
        guard let left = timeLeft() else { throw .timedOut }
        let answer: T?
        do {
            answer = try await inbox.run(within: left) { await question(agent) }
        } catch {
            throw .linkLost("pairing was cancelled")
        }
        guard let answer else {
            isDead = true
            throw .timedOut
        }
        return answer
    }

    /// Encrypts the link with the key phase 2 produced (EDIV = Rand = 0), within what is left of
    /// the Security Manager Timer.
    private func encryptLink(with key: SecretKey128) async throws(PairingError) {
        let encrypt = encrypt
        guard let left = timeLeft() else { throw .timedOut }
        let outcome: Result<Void, PairingError>?
        do {
            outcome = try await inbox.run(within: left) { () async -> Result<Void, PairingError> in
                do {
                    try await encrypt(key, 0, 0)
                    return .success(())
                } catch let error as PairingError {
                    return .failure(error)
                } catch {
                    return .failure(.linkLost("encrypting the link failed: \(error)"))
                }
            }
        } catch {
            throw .linkLost("pairing was cancelled")
        }
        switch outcome {
        case .none:
            isDead = true
            throw .timedOut
        case .success?: return
        case .failure(let error)?: throw error
        }
    }
}
