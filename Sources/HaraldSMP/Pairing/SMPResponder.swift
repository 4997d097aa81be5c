import HaraldCodec
import HaraldCore

/// The pairing procedure of the responder (the peripheral on LE), transport-free: phase 1
/// (Pairing Request and Response), phase 2 (LE Secure Connections or LE legacy key generation)
/// and phase 3 (transport-specific key distribution), Core spec Vol 3 Part H §2.3 and §3.
///
/// The caller's SMP dispatcher reads the central's first Pairing Request (it is what tells the
/// dispatcher to start a responder) and passes it to ``respond(to:)``; the responder then reads
/// every later PDU from the bearer's `incoming` stream, which must therefore carry only the PDUs
/// that follow that request. One responder serves one pairing attempt: after it finishes or
/// fails, every call throws.
///
/// Each wait (for a PDU, for the person, for the central to encrypt) is bounded by the Security
/// Manager Timer (§3.4) on the injected clock: it starts with the Pairing Request and restarts
/// only when this responder sends a PDU or receives the PDU it expects; a Keypress Notification
/// it skips leaves it running. On timeout the responder sends nothing more, ever. On a failure
/// it detects itself it sends Pairing Failed with the reason first. Nothing it logs or describes
/// contains key material.
///
/// It refuses a Pairing Request offering keys shorter than the configuration requires
/// (``PairingError/encryptionKeySize(offered:required:)``, Pairing Failed 0x06), a peer public key
/// whose X coordinate is ours or that is the debug key (unless the configuration accepts debug
/// keys; Pairing Failed 0x0B), and, with a ``PairingAttemptLimiter``, a Pairing Request that comes
/// too soon after failures (Pairing Failed 0x09).
public actor SMPResponder {
    /// Returns once the central's LE Enable Encryption with the given key succeeded: the host
    /// answers the controller's LE Long Term Key Request with this key (the LTK in Secure
    /// Connections, the STK in legacy pairing; EDIV and Rand are 0 in both cases) and returns on
    /// Encryption Change with status 0. Throw a ``PairingError`` (`.encryptionFailed(status)`,
    /// `.linkLost`) to end the pairing; any other error ends it as `.linkLost`.
    public typealias EncryptionWaiter = @Sendable (_ key: SecretKey128) async throws -> Void

    private enum Phase {
        case idle
        case pairing
        case finished
        case failed(PairingError)
    }

    private let bearer: any SMPBearer
    private let configuration: PairingConfiguration
    private let addresses: PairingAddresses
    private let agent: any PairingAgent
    private let clock: any Clock<Duration>
    private let localKeys: SMPResponderLocalKeys
    private let keyPair: P256KeyPair
    private let random: RandomSource
    private let awaitEncryption: EncryptionWaiter
    private let taskStarter: TaskStarter
    private let attempts: PairingAttemptLimiter?
    private let checkPeerKeys: PeerKeysCheck?

    private var phase = Phase.idle
    /// Measures the Security Manager Timer.
    private let stopwatch: Stopwatch
    /// When (on ``stopwatch``) the Security Manager Timer last (re)started.
    private var timerStartedAt: Duration = .zero
    /// True once the central's public key turned out to be the debug key (accepted by the
    /// configuration): the outcome is then never a bond.
    private var peerUsedDebugKey = false
    /// The pairing method and key size once the Pairing Response went out (what the link's
    /// security will be once encrypted with the key this pairing makes).
    public private(set) var negotiatedSecurity: (method: PairingMethod, keySize: Int)?
    /// What arrived and was not taken yet, with the Security Manager Timer on each wait.
    let inbox: SMPInbox
    /// The link's serial domain, whose executor the pairing runs on (see `SerialDomain`).
    package nonisolated let serialDomain: any Actor
    /// The executor of the link's serial domain, where this actor runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { serialDomain.unownedExecutor }

    /// - Parameters:
    ///   - bearer: where SMP PDUs go and come from (after the first Pairing Request).
    ///   - configuration: this device's IO capability, AuthReq, key sizes, the keys it asks
    ///     for and offers, Secure Connections Only mode and the SMP timeout.
    ///   - addresses: both devices' addresses on this connection.
    ///   - agent: the person (or app) that confirms, compares, types or shows.
    ///   - clock: measures the SMP timeout.
    ///   - localKeys: what this device distributes in phase 3.
    ///   - keyPair: this device's P-256 key pair for Secure Connections (fresh by default).
    ///   - random: the source of nonces and generated keys (the system's by default).
    ///   - taskStarter: where its timers and its reader of the bearer run (the simulation's
    ///     executor in a simulation).
    ///   - attempts: the device's Repeated Attempts limiter, shared by all its responders: a
    ///     Pairing Request from a central (by its address on this connection) still within its
    ///     wait after a failed pairing is answered with Pairing Failed, Repeated Attempts (0x09),
    ///     and every pairing's end is recorded in it. Nil: no limit.
    ///   - checkPeerKeys: decides, once the initiator distributed its keys, whether they may be
    ///     kept; a refusal sends Pairing Failed and fails the pairing with
    ///     ``PairingError/keysRefused(_:_:)``. Nil accepts them.
    ///   - serialDomain: the actor whose executor the pairing runs on: its link's serial domain,
    ///     shared with the link's other engines. Nil gives the pairing a domain of its own.
    ///   - awaitEncryption: see ``EncryptionWaiter``.
    public init(
        bearer: any SMPBearer, configuration: PairingConfiguration, addresses: PairingAddresses,
        agent: any PairingAgent, clock: any Clock<Duration> = ContinuousClock(),
        localKeys: SMPResponderLocalKeys, keyPair: P256KeyPair = P256KeyPair(),
        random: RandomSource = .system, taskStarter: TaskStarter = .default, attempts: PairingAttemptLimiter? = nil,
        checkPeerKeys: PeerKeysCheck? = nil, serialDomain: (any Actor)? = nil, awaitEncryption: @escaping EncryptionWaiter
    ) {
        self.taskStarter = taskStarter
        let serialDomain = serialDomain ?? SerialDomain()
        self.serialDomain = serialDomain
        inbox = SMPInbox(clock: clock, starter: taskStarter, serialDomain: serialDomain)
        self.bearer = bearer
        self.configuration = configuration
        self.addresses = addresses
        self.agent = agent
        self.clock = clock
        self.localKeys = localKeys
        self.keyPair = keyPair
        self.random = random
        self.awaitEncryption = awaitEncryption
        self.attempts = attempts
        self.checkPeerKeys = checkPeerKeys
        self.stopwatch = Stopwatch(clock)
    }

    // MARK: Public API

    /// Sends Security Request (§3.5.7): asks the central to encrypt with a bond it holds or to
    /// start pairing with these requirements. The central's answer (a Pairing Request for
    /// ``respond(to:)``, or encryption) reaches the caller's dispatcher, not this method.
    public func sendSecurityRequest(authReq: AuthReq) async throws(PairingError) {
        switch phase {
        case .idle: break
        case .failed(let error): throw error
        case .pairing, .finished: throw .failedHere(.unspecifiedReason)
        }
        try await send(SMPSecurityRequest(authReq: authReq))
    }

    /// Runs the whole procedure for the central's Pairing Request and returns what it produced
    /// once both sides distributed their keys.
    ///
    /// In the outcome, `longTermKey` is the key the central will encrypt with as central again:
    /// the derived LTK in Secure Connections, or the LTK the central distributed in legacy
    /// pairing (nil if it distributed none); `localLongTermKey` is the legacy LTK this device
    /// distributed, which a later LE Long Term Key Request names by its EDIV and Rand.
    public func respond(to request: SMPPairingRequest) async throws(PairingError) -> PairingOutcome {
        switch phase {
        case .idle: break
        case .failed(let error): throw error
        case .pairing, .finished: throw .failedHere(.unspecifiedReason)
        }
        phase = .pairing
        restartTimer()
        PairingWarnings.shared.noteUse(of: configuration, role: "responder")
        let peer = addresses.initiator
        if let attempts, await attempts.remainingWait(for: peer) != nil {
            // Too soon after a failure (§2.3.6): refused, and not counted as another failure.
            try? await send(SMPPairingFailed(reason: .repeatedAttempts))
            await end(.failed(.failedHere(.repeatedAttempts)))
            throw .failedHere(.repeatedAttempts)
        }
        await inbox.start(bearer.incoming)
        do throws(PairingError) {
            let outcome = try await pair(request)
            await end(.finished)
            await attempts?.recordSuccess(ofAny: [peer] + (outcome.peerIdentityAddress.map { [$0] } ?? []))
            return outcome
        } catch {
            if let reason = error.reasonSentHere {
                try? await send(SMPPairingFailed(reason: reason))
            }
            await end(.failed(error))
            if error.countsAsFailedAttempt { await attempts?.recordFailure(of: peer) }
            throw error
        }
    }

    // MARK: Phase 1

    private struct Negotiated {
        var request: SMPPairingRequest
        var response: SMPPairingResponse
        var requestBytes: [UInt8]
        var responseBytes: [UInt8]
        var method: PairingMethod
        var keySize: Int

        /// An authenticated association model and a full 16-octet key: a shorter key never
        /// counts as authenticated.
        var countsAsAuthenticated: Bool { method.isAuthenticated && keySize >= Int(PairingConfiguration.fullKeySize) }
        var initiatorKeys: KeyDistribution { response.features.initiatorKeyDistribution }
        var responderKeys: KeyDistribution { response.features.responderKeyDistribution }
        var isBonding: Bool { request.features.authReq.isBonding && response.features.authReq.isBonding }
    }

    private func pair(_ request: SMPPairingRequest) async throws(PairingError) -> PairingOutcome {
        let negotiated = try await answer(request)
        var outcome = PairingOutcome(
            longTermKey: nil, shortTermKey: nil, localLongTermKey: nil, peerIdentityResolvingKey: nil,
            peerIdentityAddress: nil, peerSignatureKey: nil, method: negotiated.method, keySize: negotiated.keySize,
            isBonding: negotiated.isBonding)
        if negotiated.method.isSecureConnections {
            let ltk = try await secureConnections(negotiated)
            outcome.usedDebugKey = peerUsedDebugKey
            outcome.longTermKey = LongTermKey(
                key: ltk, keySize: negotiated.keySize, isAuthenticated: negotiated.countsAsAuthenticated,
                isSecureConnections: true)
            try await encrypt(with: ltk)
        } else {
            let stk = try await legacy(negotiated)
            outcome.shortTermKey = stk
            try await encrypt(with: stk)
        }
        try await distributeKeys(negotiated, into: &outcome)
        return outcome
    }

    /// Checks the request, sends the Pairing Response and settles the method.
    private func answer(_ request: SMPPairingRequest) async throws(PairingError) -> Negotiated {
        let features = request.features
        // KNOB: a central (or a man in the middle editing the cleartext request) offering a
        // short key gets Pairing Failed, Encryption Key Size.
        let required = configuration.requiredKeySize
        guard features.maxEncryptionKeySize >= required else {
            throw .encryptionKeySize(offered: features.maxEncryptionKeySize, required: required)
        }
        let keySize = min(features.maxEncryptionKeySize, Int(configuration.maxEncryptionKeySize))
        guard keySize >= required, PairingFeatures.encryptionKeySizes.contains(keySize)
        else { throw .encryptionKeySize(offered: keySize, required: required) }
        let secureConnections =
            features.authReq.contains(.secureConnections)
            && configuration.authReq.contains(.secureConnections)
        if configuration.secureConnectionsOnly && !secureConnections {
            throw .failedHere(.authenticationRequirements)
        }

        // No keypress notifications and no cross-transport derivation here; the response may
        // only clear bits of what the initiator proposed.
        let supported: KeyDistribution = [.encKey, .idKey, .signKey]
        var authReq = configuration.authReq
        authReq.remove(.keypress)
        authReq.remove(.ct2)
        if configuration.secureConnectionsOnly { authReq.insert(.secureConnections) }
        let responseFeatures = PairingFeatures(
            ioCapability: configuration.ioCapability, oobDataPresent: false, authReq: authReq,
            maxEncryptionKeySize: Int(configuration.maxEncryptionKeySize),
            initiatorKeyDistribution: features.initiatorKeyDistribution.intersection(configuration.initiatorKeys)
                .intersection(supported),
            responderKeyDistribution: features.responderKeyDistribution.intersection(configuration.responderKeys)
                .intersection(localKeys.offered))
        let response = SMPPairingResponse(responseFeatures)

        let method = PairingMethod(initiator: features, responder: responseFeatures)
        if method.model == .outOfBand { throw .failedHere(.oobNotAvailable) }
        if let reason = method.failureReason(requiringMITM: configuration.authReq.contains(.mitm)) {
            throw .failedHere(reason)
        }
        if method.model == .justWorks {
            let agent = agent
            guard try await bounded({ await agent.confirmJustWorks() }) else {
                throw .failedHere(.pairingNotSupported)
            }
        }
        let requestBytes = try encoded(request)
        let responseBytes = try encoded(response)
        try await send(bytes: responseBytes)
        negotiatedSecurity = (method, keySize)
        return Negotiated(
            request: request, response: response, requestBytes: requestBytes, responseBytes: responseBytes,
            method: method, keySize: keySize)
    }

    // MARK: Phase 2, LE Secure Connections

    /// Public keys, authentication stage 1 for the model, then the DHKey checks (§2.3.5.6).
    /// Returns the LTK, already cut to the negotiated size.
    private func secureConnections(_ negotiated: Negotiated) async throws(PairingError) -> SecretKey128 {
        let peerPDU = try await receive(SMPPairingPublicKey.self)
        let ownKey = keyPair.publicKey
        let peerKey: P256PublicKey
        let dhKey: DHKey
        do {
            peerKey = try P256PublicKey(littleEndianBytes: peerPDU.x + peerPDU.y)
        } catch {
            // An invalid point (the fixed-coordinate invalid-curve attack and its cousins).
            throw .failedHere(.dhKeyCheckFailed)
        }
        // Our own X sent back, with our Y or its negation (CVE-2020-26558), or the debug key.
        if PeerPublicKeyCheck.refusal(of: peerKey, ours: ownKey, acceptsDebugKeys: configuration.acceptsDebugKeys) != nil {
            throw .failedHere(PeerPublicKeyCheck.failureReason)
        }
        do { dhKey = try keyPair.dhKey(with: peerKey) } catch { throw .failedHere(.dhKeyCheckFailed) }
        peerUsedDebugKey = peerKey.isDebugKey
        try await send(SMPPairingPublicKey(x: ownKey.x.littleEndianBytes, y: ownKey.y.littleEndianBytes))
        let pkax = peerKey.x
        let pkbx = ownKey.x

        let na: Value128
        let nb: Value128
        let r: SecretKey128
        switch negotiated.method.model {
        case .justWorks, .numericComparison:
            nb = random.value128()
            let cb = SMPCrypto.f4(u: pkbx, v: pkax, x: nb, z: 0)
            try await send(SMPPairingConfirm(confirmValue: cb.littleEndianBytes))
            na = try await receiveRandom()
            try await send(SMPPairingRandom(randomValue: nb.littleEndianBytes))
            if negotiated.method.model == .numericComparison {
                let value = NumericComparisonValue(g2: SMPCrypto.g2(u: pkax, v: pkbx, x: na, y: nb))
                let agent = agent
                guard try await bounded({ await agent.confirmNumericComparison(value) }) else {
                    throw .failedHere(.numericComparisonFailed)
                }
            }
            r = .zero
        case .passkeyEntry(let roles):
            let passkey = try await passkey(roles)
            (na, nb) = try await passkeyRounds(passkey, pkax: pkax, pkbx: pkbx)
            // In range by construction.
            r = SecretKey128(passkey: passkey)!
        case .outOfBand:
            throw .failedHere(.oobNotAvailable)
        }

        let a = addresses.initiator
        let b = addresses.responder
        let (macKey, ltk) = SMPCrypto.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
        let ea = try await receive(SMPPairingDHKeyCheck.self)
        let expected = SMPCrypto.f6(
            w: macKey, n1: na, n2: nb, r: r, ioCap: Self.ioCap(negotiated.request.features), a1: a, a2: b)
        guard ConstantTime.equal(expected.littleEndianBytes, ea.checkValue) else {
            throw .failedHere(.dhKeyCheckFailed)
        }
        let eb = SMPCrypto.f6(
            w: macKey, n1: nb, n2: na, r: r, ioCap: Self.ioCap(negotiated.response.features), a1: b, a2: a)
        try await send(SMPPairingDHKeyCheck(checkValue: eb.littleEndianBytes))
        return SMPResponderSupport.shortened(ltk, to: negotiated.keySize)
    }

    /// The twenty rounds of Passkey Entry (§2.3.5.6.3), least significant passkey bit first.
    /// Returns the last round's nonces, which f5 and f6 use.
    private func passkeyRounds(
        _ passkey: UInt32, pkax: Value256, pkbx: Value256
    ) async throws(PairingError) -> (na: Value128, nb: Value128) {
        var last: (na: Value128, nb: Value128)?
        for round in 0..<20 {
            let z = 0x80 | UInt8(truncatingIfNeeded: (passkey >> round) & 1)
            let cai = try await receive(SMPPairingConfirm.self)
            let nbi = random.value128()
            let cbi = SMPCrypto.f4(u: pkbx, v: pkax, x: nbi, z: z)
            try await send(SMPPairingConfirm(confirmValue: cbi.littleEndianBytes))
            let nai = try await receiveRandom()
            let expected = SMPCrypto.f4(u: pkax, v: pkbx, x: nai, z: z)
            guard ConstantTime.equal(expected.littleEndianBytes, cai.confirmValue) else {
                throw .failedHere(.confirmValueFailed)
            }
            try await send(SMPPairingRandom(randomValue: nbi.littleEndianBytes))
            last = (nai, nbi)
        }
        // Twenty rounds ran.
        return last!
    }

    /// The passkey of Passkey Entry: generated and shown when this device displays, typed by
    /// the person otherwise (nil from the agent → Passkey Entry Failed).
    private func passkey(_ roles: PasskeyEntryRoles) async throws(PairingError) -> UInt32 {
        let agent = agent
        if roles.responderDisplays {
            let chosen = try await bounded({ await agent.passkeyToDisplay() }).flatMap { $0 <= 999_999 ? $0 : nil }
            let passkey = chosen ?? random.passkey()
            try await bounded({ await agent.displayPasskey(passkey) })
            return passkey
        }
        guard let typed = try await bounded({ await agent.enterPasskey() }), typed <= 999_999 else {
            throw .failedHere(.passkeyEntryFailed)
        }
        return typed
    }

    private static func ioCap(_ features: PairingFeatures) -> IOcap {
        IOcap(
            authReq: features.authReq.rawValue, oobDataFlag: features.oobDataPresent ? 0x01 : 0x00,
            ioCapability: features.ioCapability.rawValue)
    }

    // MARK: Phase 2, LE legacy pairing

    /// Mconfirm, Sconfirm, Mrand, Srand (§2.3.5.5); returns the STK, cut to the negotiated size.
    private func legacy(_ negotiated: Negotiated) async throws(PairingError) -> SecretKey128 {
        let tk: SecretKey128
        switch negotiated.method.model {
        case .justWorks: tk = .zero
        case .passkeyEntry(let roles):
            // In range by construction.
            tk = SecretKey128(passkey: try await passkey(roles))!
        case .numericComparison, .outOfBand: throw .failedHere(.oobNotAvailable)
        }
        func c1(_ r: Value128) -> [UInt8] {
            // Both PDUs are 7 octets, so c1 has a value.
            SMPCrypto.c1(
                tk, r, pairingRequest: negotiated.requestBytes, pairingResponse: negotiated.responseBytes,
                initiator: addresses.initiator, responder: addresses.responder)!.littleEndianBytes
        }
        let mconfirm = try await receive(SMPPairingConfirm.self)
        let srand = random.value128()
        try await send(SMPPairingConfirm(confirmValue: c1(srand)))
        let mrand = try await receiveRandom()
        guard ConstantTime.equal(c1(mrand), mconfirm.confirmValue) else {
            throw .failedHere(.confirmValueFailed)
        }
        try await send(SMPPairingRandom(randomValue: srand.littleEndianBytes))
        return SMPResponderSupport.shortened(SMPCrypto.s1(tk, srand, mrand), to: negotiated.keySize)
    }

    // MARK: Encryption and phase 3

    private func encrypt(with key: SecretKey128) async throws(PairingError) {
        let awaitEncryption = awaitEncryption
        try await bounded({ try await awaitEncryption(key) })
    }

    /// This device's keys first, then the initiator's, each in the order of §3.6.1: Encryption
    /// Information, Central Identification (legacy only), Identity Information, Identity Address
    /// Information, Signing Information.
    private func distributeKeys(_ negotiated: Negotiated, into outcome: inout PairingOutcome) async throws(PairingError) {
        let legacy = !negotiated.method.isSecureConnections
        let ours = negotiated.responderKeys
        if legacy && ours.contains(.encKey) {
            let key = SMPResponderSupport.shortened(random.key128(), to: negotiated.keySize)
            let ltk = LongTermKey(
                key: key, ediv: random.integer(UInt16.self), rand: random.integer(UInt64.self),
                keySize: negotiated.keySize, isAuthenticated: negotiated.countsAsAuthenticated,
                isSecureConnections: false)
            try await send(SMPEncryptionInformation(longTermKey: ltk.key))
            try await send(SMPCentralIdentification(ediv: ltk.ediv, rand: ltk.rand))
            outcome.localLongTermKey = ltk
        }
        if ours.contains(.idKey), let identity = localKeys.identity {
            try await send(SMPIdentityInformation(identityResolvingKey: identity.identityResolvingKey))
            try await send(SMPIdentityAddressInformation(identityAddress: identity.address))
        }
        if ours.contains(.signKey), let signatureKey = localKeys.signatureKey {
            try await send(SMPSigningInformation(signatureKey: signatureKey))
        }

        let theirs = negotiated.initiatorKeys
        if legacy && theirs.contains(.encKey) {
            let information = try await receive(SMPEncryptionInformation.self)
            let identification = try await receive(SMPCentralIdentification.self)
            outcome.longTermKey = LongTermKey(
                key: information.longTermKey, ediv: identification.ediv, rand: identification.rand,
                keySize: negotiated.keySize, isAuthenticated: negotiated.countsAsAuthenticated,
                isSecureConnections: false)
        }
        if theirs.contains(.idKey) {
            let information = try await receive(SMPIdentityInformation.self)
            let address = try await receive(SMPIdentityAddressInformation.self)
            guard address.identityAddress.isIdentity else { throw .failedHere(.invalidParameters) }
            outcome.peerIdentityResolvingKey = information.identityResolvingKey
            outcome.peerIdentityAddress = address.identityAddress
        }
        if theirs.contains(.signKey) {
            outcome.peerSignatureKey = try await receive(SMPSigningInformation.self).signatureKey
        }
        if let checkPeerKeys {
            let keys = PeerPairingKeys(
                connectedFrom: addresses.initiator, identityAddress: outcome.peerIdentityAddress,
                identityResolvingKey: outcome.peerIdentityResolvingKey, method: negotiated.method, keySize: negotiated.keySize,
                isBonding: negotiated.isBonding)
            if case .refuse(let reason, let refusal) = try await bounded({ await checkPeerKeys(keys) }) {
                // `respond(to:)` sends the one Pairing Failed (the error's reasonSentHere).
                throw .keysRefused(reason, refusal)
            }
        }
    }

    // MARK: Sending and receiving

    private func encoded(_ pdu: some SMPPDUCodable) throws(PairingError) -> [UInt8] {
        do {
            return try pdu.encodedBytes()
        } catch {
            // Only a field this responder filled in wrongly gets here.
            throw .failedHere(.unspecifiedReason)
        }
    }

    private func send(_ pdu: some SMPPDUCodable) async throws(PairingError) {
        try await send(bytes: try encoded(pdu))
    }

    private func send(bytes: [UInt8]) async throws(PairingError) {
        if case .failed(.timedOut) = phase { throw .timedOut }
        do {
            try await bearer.send(bytes)
        } catch {
            throw .linkLost("sending an SMP PDU failed: \(error)")
        }
        restartTimer()
    }

    // MARK: The Security Manager Timer (§3.4)

    /// Restarts the timer: the Pairing Request arrived, a PDU went out, or the expected PDU came in.
    private func restartTimer() { timerStartedAt = stopwatch.elapsed }

    /// What is left of the timer; nil once it has run out.
    private func timeLeft() -> Duration? {
        let left = configuration.timeout - (stopwatch.elapsed - timerStartedAt)
        return left > .zero ? left : nil
    }

    private func receiveRandom() async throws(PairingError) -> Value128 {
        // Sixteen octets always make a value.
        Value128(littleEndianBytes: try await receive(SMPPairingRandom.self).randomValue)!
    }

    /// The next PDU, which must be a `T` (it restarts the Security Manager Timer): Pairing Failed
    /// ends the pairing as the peer's failure, a PDU that does not decode as the reason its error
    /// maps to, any other PDU as Unspecified Reason. Keypress notifications are skipped (this
    /// responder never asks for them) and leave the timer running.
    private func receive<T: SMPPDUCodable>(_ type: T.Type) async throws(PairingError) -> T {
        while true {
            guard let left = timeLeft() else { throw .timedOut }
            let bytes = try await inbox.nextPDU(within: left)
            let pdu: SMPPDU
            do {
                pdu = try SMPPDU(decoding: bytes)
            } catch {
                throw .failedHere(error.pairingFailureReason)
            }
            if let wanted = pdu.as(T.self) {
                restartTimer()
                return wanted
            }
            switch pdu {
            case .pairingFailed(let failed): throw .failedByPeer(failed.reason)
            case .keypressNotification: continue
            default: throw .failedHere(.unspecifiedReason)
            }
        }
    }

    /// Runs `operation` within what is left of the Security Manager Timer.
    private func bounded<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value
    ) async throws(PairingError) -> Value {
        guard let left = timeLeft() else { throw .timedOut }
        let result: Value?
        do {
            result = try await inbox.run(within: left, operation)
        } catch let error as PairingError {
            throw error
        } catch {
            throw .linkLost("\(error)")
        }
        guard let result else { throw .timedOut }
        return result
    }

    private func end(_ final: Phase) async {
        phase = final
        await inbox.stop()
    }
}
