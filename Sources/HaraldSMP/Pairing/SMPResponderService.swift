import HaraldCore

/// The responder's side of one link's SMP channel for as long as the link lasts (the peripheral
/// of an LE link): each Pairing Request gets a fresh ``SMPResponder``, which takes every PDU that
/// follows until its pairing ends; a PDU that arrives with no pairing under way is answered with
/// Pairing Failed (Command Not Supported for an unknown or malformed PDU, Unspecified Reason for a
/// known one out of order) and otherwise ignored. Once a pairing hit the SMP timeout, nothing
/// more is answered on the link (Core spec Vol 3 Part H §3.4): a new pairing needs a new
/// connection.
///
/// Transport-free like the responder: the HCI peripheral and the simulator each give it the
/// channel's PDUs and a way to send, and learn every outcome through `onOutcome`.
public struct SMPResponderService: Sendable {
    /// PDUs that wait for a pairing in progress to take them; past this the oldest are dropped
    /// (the pairing itself bounds what it keeps, ``SMPPendingPDUs``).
    static let followingPDUBufferLimit = 16

    /// Sends one SMP PDU on the link (L2CAP channel 0x0006).
    public typealias Send = @Sendable (_ pdu: [UInt8]) async throws -> Void

    private let configuration: PairingConfiguration
    private let agent: any PairingAgent
    private let addresses: PairingAddresses
    private let localKeys: SMPResponderLocalKeys
    private let clock: any Clock<Duration>
    private let taskStarter: TaskStarter
    private let send: Send
    private let awaitEncryption: EncryptionWaiter
    private let checkPeerKeys: PeerKeysCheck?
    private let attempts: PairingAttemptLimiter?
    private let serialDomain: (any Actor)?

    /// Returns once the central encrypted with `key` (the host answers the LTK Request with it),
    /// told the level the link will have (from the method both sides settled on) and the
    /// negotiated key size in octets (7…16), which the controller's Encryption Change may not report.
    public typealias EncryptionWaiter = @Sendable (_ key: SecretKey128, _ level: SecurityLevel, _ keySize: Int) async throws -> Void

    /// - Parameters:
    ///   - configuration: our IO capabilities, the authentication we require and the keys we distribute.
    ///   - agent: answers what pairing asks the user: passkeys, numeric comparison, confirmation.
    ///   - addresses: both devices' addresses on this link (the central is the initiator).
    ///   - localKeys: the keys this device hands out in key distribution (IRK, identity address).
    ///   - clock: measures the SMP timeout (30 s per step).
    ///   - taskStarter: where its timers run (the simulation's executor in a simulation).
    ///   - send: sends one PDU on the link's SMP channel.
    ///   - attempts: the device's Repeated Attempts limiter (Core spec Vol 3 Part H §2.3.6),
    ///     shared by the services of all its links: a Pairing Request that comes while the
    ///     central (or, past the limiter's global allowance, anyone) must still wait is answered
    ///     with Pairing Failed, Repeated Attempts (0x09). Nil: no limit.
    ///   - awaitEncryption: returns once the central encrypted with the key (see
    ///     ``SMPResponder/EncryptionWaiter``); the level lets the server grant authenticated
    ///     access the moment the link is encrypted, not after key distribution.
    ///   - checkPeerKeys: decides whether the central's distributed keys may be kept, before a
    ///     pairing ends (see ``SMPResponder``); nil accepts them. The peripheral's bond rules
    ///     (proven identity, no overwrite, no downgrade) live here.
    ///   - serialDomain: the link's serial domain, which each pairing's ``SMPResponder`` runs on;
    ///     nil gives each pairing a domain of its own.
    public init(
        configuration: PairingConfiguration, agent: any PairingAgent, addresses: PairingAddresses, localKeys: SMPResponderLocalKeys,
        clock: any Clock<Duration> = ContinuousClock(), taskStarter: TaskStarter = .default, attempts: PairingAttemptLimiter? = nil,
        send: @escaping Send, checkPeerKeys: PeerKeysCheck? = nil, serialDomain: (any Actor)? = nil,
        awaitEncryption: @escaping EncryptionWaiter
    ) {
        self.serialDomain = serialDomain
        self.configuration = configuration
        self.agent = agent
        self.addresses = addresses
        self.localKeys = localKeys
        self.clock = clock
        self.taskStarter = taskStarter
        self.send = send
        self.awaitEncryption = awaitEncryption
        self.checkPeerKeys = checkPeerKeys
        self.attempts = attempts
    }

    /// Serves `incoming` until it finishes (the link ended); `onStart` is called when a Pairing
    /// Request starts a pairing, `onOutcome` with how each pairing ended.
    public func serve(
        _ incoming: AsyncStream<[UInt8]>, onStart: @escaping @Sendable () -> Void = {},
        onOutcome: @escaping @Sendable (Result<PairingOutcome, PairingError>) async -> Void
    ) async {
        let current = Locked<AsyncStream<[UInt8]>.Continuation?>(nil)
        let timedOut = Locked(false)
        for await pdu in incoming {
            if let inbox = current.withLock({ $0 }) {
                inbox.yield(pdu)
                continue
            }
            if timedOut.withLock({ $0 }) { continue }
            let decoded = try? SMPPDU(decoding: pdu)
            guard case .pairingRequest(let request)? = decoded else {
                let reason: PairingFailureReason = decoded == nil ? .commandNotSupported : .unspecifiedReason
                if let failure = try? SMPPairingFailed(reason: reason).encodedBytes() { try? await send(failure) }
                continue
            }
            let (followers, inbox) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(Self.followingPDUBufferLimit))
            current.withLock { $0 = inbox }
            onStart()
            let responder = makeResponder(incoming: followers)
            taskStarter.start {
                let outcome: Result<PairingOutcome, PairingError>
                do throws(PairingError) { outcome = .success(try await responder.respond(to: request)) } catch { outcome = .failure(error) }
                if case .failure(.timedOut) = outcome { timedOut.withLock { $0 = true } }
                current.withLock { $0 = nil }
                inbox.finish()
                await onOutcome(outcome)
            }
        }
        current.withLock { $0 }?.finish()
    }

    private func makeResponder(incoming: AsyncStream<[UInt8]>) -> SMPResponder {
        let awaitEncryption = awaitEncryption
        // Weak: the responder holds this handler, so a strong reference here would keep both
        // alive for ever.
        let responder = Locked(WeakResponder())
        let made = SMPResponder(
            bearer: ForwardingBearer(incoming: incoming, sender: send), configuration: configuration, addresses: addresses, agent: agent,
            clock: clock, localKeys: localKeys, taskStarter: taskStarter, attempts: attempts, checkPeerKeys: checkPeerKeys,
            serialDomain: serialDomain
        ) { key in
            // The responder waits here for the encryption; its negotiated method is settled.
            let negotiated = await responder.withLock { $0.value }?.negotiatedSecurity
            let level = negotiated.map { $0.method.securityLevel(keySize: $0.keySize) } ?? .encrypted
            // Settled before the key exists; were it not, the shortest key SMP allows is assumed.
            try await awaitEncryption(key, level, negotiated?.keySize ?? PairingFeatures.encryptionKeySizes.lowerBound)
        }
        responder.withLock { $0.value = made }
        return made
    }

    /// The responder its own encryption handler asks for the negotiated method.
    private struct WeakResponder {
        weak var value: SMPResponder?
    }

    /// The responder's bearer: the PDUs after its Pairing Request, and the link's sender.
    private struct ForwardingBearer: SMPBearer {
        let incoming: AsyncStream<[UInt8]>
        let sender: Send
        nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws { try await sender(pdu) }
    }
}
