import HaraldCodec
import HaraldCore
import HaraldSMP
import HaraldTestSupport
import Testing

/// What happened on the responder's side of the link, in order: each PDU it sent, and each time
/// it waited for the central to encrypt.
enum ResponderEvent: Hashable, Sendable {
    case sent(SMPCode)
    case encrypted
}

final class ResponderEventLog: Sendable {
    private let events = Locked<[ResponderEvent]>([])
    private let keys = Locked<[SecretKey128]>([])

    func append(_ event: ResponderEvent) { events.withLock { $0.append(event) } }
    func encrypted(with key: SecretKey128) {
        keys.withLock { $0.append(key) }
        append(.encrypted)
    }

    var all: [ResponderEvent] { events.value }
    var encryptionKeys: [SecretKey128] { keys.value }
}

/// The responder's end of an in-memory SMP channel.
final class InMemorySMPBearer: SMPBearer {
    let incoming: AsyncStream<[UInt8]>
    private let toInitiator: AsyncStream<[UInt8]>.Continuation
    private let log: ResponderEventLog

    init(incoming: AsyncStream<[UInt8]>, toInitiator: AsyncStream<[UInt8]>.Continuation, log: ResponderEventLog) {
        self.incoming = incoming
        self.toInitiator = toInitiator
        self.log = log
    }

    func send(_ pdu: [UInt8]) async throws {
        if let first = pdu.first, let code = SMPCode(rawValue: first) { log.append(.sent(code)) }
        toInitiator.yield(pdu)
    }
}

/// The person at the responder: answers as configured and remembers what it was shown.
final class ScriptedPairingAgent: PairingAgent {
    let acceptsJustWorks: Bool
    let acceptsNumericComparison: Bool
    let typedPasskey: UInt32?
    let displayedPasskeys: AsyncStream<UInt32>
    private let displayed: AsyncStream<UInt32>.Continuation
    private let compared = Locked<[NumericComparisonValue]>([])

    init(acceptsJustWorks: Bool = true, acceptsNumericComparison: Bool = true, typedPasskey: UInt32? = nil) {
        self.acceptsJustWorks = acceptsJustWorks
        self.acceptsNumericComparison = acceptsNumericComparison
        self.typedPasskey = typedPasskey
        (displayedPasskeys, displayed) = AsyncStream.makeStream()
    }

    var comparedValues: [NumericComparisonValue] { compared.value }

    func confirmJustWorks() async -> Bool { acceptsJustWorks }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool {
        compared.withLock { $0.append(value) }
        return acceptsNumericComparison
    }
    func enterPasskey() async -> UInt32? { typedPasskey }
    func displayPasskey(_ passkey: UInt32) async { displayed.yield(passkey) }
}

/// Random octets handed out from a script first (the spec's sample nonces), then counting
/// upwards, so every run is the same.
final class ScriptedRandom: Sendable {
    private let state: Locked<(script: [[UInt8]], counter: UInt8)>

    init(_ script: [[UInt8]] = []) { state = Locked((script, 1)) }

    var source: SMPResponder.RandomSource {
        SMPResponder.RandomSource { count in self.next(count) }
    }

    private func next(_ count: Int) -> [UInt8] {
        state.withLock { state in
            if let first = state.script.first, first.count == count {
                state.script.removeFirst()
                return first
            }
            state.counter &+= 1
            return (0..<count).map { UInt8(truncatingIfNeeded: Int(state.counter) &* 31 &+ $0 &* 7) }
        }
    }
}

/// A responder wired to a test: the scripted initiator talks to it through `initiator`.
struct ResponderUnderTest {
    let responder: SMPResponder
    let initiator: ScriptedInitiator
    let log: ResponderEventLog
    let clock: ManualClock
    let agent: ScriptedPairingAgent

    static let initiatorAddress = BluetoothAddress("56:12:37:37:BF:CE", kind: .public)!
    static let responderAddress = BluetoothAddress("A7:13:70:2D:CF:C1", kind: .public)!
    static let responderIdentity = try! LocalIdentity(
        address: BluetoothAddress("C0:11:22:33:44:55", kind: .random)!,
        identityResolvingKey: IdentityResolvingKey(key: key(0x11)))
    static let responderSignatureKey = ConnectionSignatureResolvingKey(key: key(0x22))

    init(
        configuration: PairingConfiguration = PairingConfiguration(),
        agent: ScriptedPairingAgent = ScriptedPairingAgent(),
        localKeys: SMPResponderLocalKeys = SMPResponderLocalKeys(identity: Self.responderIdentity),
        keyPair: P256KeyPair = P256KeyPair(),
        random: ScriptedRandom = ScriptedRandom(),
        clock: ManualClock = ManualClock(),
        attempts: PairingAttemptLimiter? = nil,
        initiatorAddress: BluetoothAddress = Self.initiatorAddress,
        checkPeerKeys: PeerKeysCheck? = nil
    ) {
        let log = ResponderEventLog()
        let (toResponder, toResponderContinuation) = AsyncStream<[UInt8]>.makeStream()
        let (toInitiator, toInitiatorContinuation) = AsyncStream<[UInt8]>.makeStream()
        let bearer = InMemorySMPBearer(incoming: toResponder, toInitiator: toInitiatorContinuation, log: log)
        self.log = log
        self.clock = clock
        self.agent = agent
        let addresses = PairingAddresses(initiator: initiatorAddress, responder: Self.responderAddress)
        responder = SMPResponder(
            bearer: bearer, configuration: configuration, addresses: addresses, agent: agent, clock: clock,
            localKeys: localKeys, keyPair: keyPair, random: random.source, attempts: attempts, checkPeerKeys: checkPeerKeys,
            awaitEncryption: { key in log.encrypted(with: key) })
        initiator = ScriptedInitiator(
            toResponder: toResponderContinuation, fromResponder: toInitiator, addresses: addresses)
    }

    /// Starts the responder on `request`, as a dispatcher would.
    func start(_ request: SMPPairingRequest) -> Task<PairingOutcome, any Error> {
        initiator.request = request
        let responder = responder
        return Task { try await responder.respond(to: request) }
    }

    static func key(_ seed: UInt8) -> SecretKey128 {
        SecretKey128(littleEndianBytes: (0..<16).map { seed &+ UInt8($0) })!
    }
}

/// Octets from spec-order (most significant first) hex, reversed into wire order.
func wireOrder(_ hex: String) -> [UInt8] {
    (try! Hex.decode(hex.replacingOccurrences(of: " ", with: ""))).reversed()
}

func keyOctets(_ key: SecretKey128) -> [UInt8] { key.withUnsafeKeyBytes { $0 } }

struct InitiatorScriptFailure: Error, CustomStringConvertible {
    var description: String
}

/// The central's side of pairing, written with the crypto toolbox, one step per call so a test
/// reads as the exchange it checks.
final class ScriptedInitiator: @unchecked Sendable {
    // @unchecked: used only by the test task that owns it.
    private let toResponder: AsyncStream<[UInt8]>.Continuation
    private var fromResponder: AsyncStream<[UInt8]>.Iterator
    let addresses: PairingAddresses
    var request: SMPPairingRequest?
    var response: SMPPairingResponse?

    init(
        toResponder: AsyncStream<[UInt8]>.Continuation, fromResponder: AsyncStream<[UInt8]>, addresses: PairingAddresses
    ) {
        self.toResponder = toResponder
        self.fromResponder = fromResponder.makeAsyncIterator()
        self.addresses = addresses
    }

    func send(_ pdu: some SMPPDUCodable) throws { toResponder.yield(try pdu.encodedBytes()) }
    func send(raw bytes: [UInt8]) { toResponder.yield(bytes) }
    func closeLink() { toResponder.finish() }

    /// The responder's next PDU.
    func next() async throws -> SMPPDU {
        guard let bytes = await fromResponder.next() else { throw InitiatorScriptFailure(description: "the responder went quiet") }
        return try SMPPDU(decoding: bytes)
    }

    /// The responder's next PDU, which must be a `T`.
    func expect<T: SMPPDUCodable>(_ type: T.Type) async throws -> T {
        let pdu = try await next()
        guard let wanted = pdu.as(T.self) else {
            throw InitiatorScriptFailure(description: "expected \(T.code), got \(pdu.code)")
        }
        return wanted
    }

    /// The reason of the Pairing Failed the responder must send next.
    func expectFailure() async throws -> PairingFailureReason {
        try await expect(SMPPairingFailed.self).reason
    }

    @discardableResult
    func expectResponse() async throws -> SMPPairingResponse {
        let response = try await expect(SMPPairingResponse.self)
        self.response = response
        return response
    }

    // MARK: LE Secure Connections

    struct SecureConnectionsState {
        var keyPair: P256KeyPair
        var peerKey: P256PublicKey
        var dhKey: DHKey
        var pkax: Value256 { keyPair.publicKey.x }
        var pkbx: Value256 { peerKey.x }
    }

    func exchangePublicKeys(_ keyPair: P256KeyPair) async throws -> SecureConnectionsState {
        let own = keyPair.publicKey
        try send(SMPPairingPublicKey(x: own.x.littleEndianBytes, y: own.y.littleEndianBytes))
        let theirs = try await expect(SMPPairingPublicKey.self)
        let peerKey = try P256PublicKey(littleEndianBytes: theirs.x + theirs.y)
        return SecureConnectionsState(keyPair: keyPair, peerKey: peerKey, dhKey: try keyPair.dhKey(with: peerKey))
    }

    /// Just Works / Numeric Comparison stage 1: returns (Na, Nb) after checking Cb.
    func justWorksNonces(_ state: SecureConnectionsState, na: Value128) async throws -> (na: Value128, nb: Value128) {
        let cb = try await expect(SMPPairingConfirm.self)
        try send(SMPPairingRandom(randomValue: na.littleEndianBytes))
        let nb = Value128(littleEndianBytes: try await expect(SMPPairingRandom.self).randomValue)!
        let expected = SMPCrypto.f4(u: state.pkbx, v: state.pkax, x: nb, z: 0)
        guard expected.littleEndianBytes == cb.confirmValue else { throw InitiatorScriptFailure(description: "Cb does not match") }
        return (na, nb)
    }

    /// One Passkey Entry round as the initiator. Returns nil when the responder answered the
    /// round with Pairing Failed (the reason is then in `lastFailure`).
    var lastFailure: PairingFailureReason?

    func passkeyRound(
        _ state: SecureConnectionsState, passkey: UInt32, round: Int, nai: Value128
    ) async throws -> Value128? {
        let z = 0x80 | UInt8((passkey >> round) & 1)
        try send(SMPPairingConfirm(confirmValue: SMPCrypto.f4(u: state.pkax, v: state.pkbx, x: nai, z: z).littleEndianBytes))
        let cbi = try await expect(SMPPairingConfirm.self)
        try send(SMPPairingRandom(randomValue: nai.littleEndianBytes))
        switch try await next() {
        case .pairingRandom(let random):
            let nbi = Value128(littleEndianBytes: random.randomValue)!
            let expected = SMPCrypto.f4(u: state.pkbx, v: state.pkax, x: nbi, z: z)
            guard expected.littleEndianBytes == cbi.confirmValue else { throw InitiatorScriptFailure(description: "Cbi does not match") }
            return nbi
        case .pairingFailed(let failed):
            lastFailure = failed.reason
            return nil
        case let other:
            throw InitiatorScriptFailure(description: "unexpected \(other.code)")
        }
    }

    /// Sends Ea, checks Eb and returns the LTK both sides derived.
    func checkDHKey(
        _ state: SecureConnectionsState, na: Value128, nb: Value128, r: SecretKey128
    ) async throws -> SecretKey128 {
        guard let request, let response else { throw InitiatorScriptFailure(description: "no phase 1") }
        let a = addresses.initiator
        let b = addresses.responder
        let (macKey, ltk) = SMPCrypto.f5(w: state.dhKey, n1: na, n2: nb, a1: a, a2: b)
        let ea = SMPCrypto.f6(w: macKey, n1: na, n2: nb, r: r, ioCap: Self.ioCap(request.features), a1: a, a2: b)
        try send(SMPPairingDHKeyCheck(checkValue: ea.littleEndianBytes))
        let eb = try await expect(SMPPairingDHKeyCheck.self)
        let expected = SMPCrypto.f6(w: macKey, n1: nb, n2: na, r: r, ioCap: Self.ioCap(response.features), a1: b, a2: a)
        guard expected.littleEndianBytes == eb.checkValue else { throw InitiatorScriptFailure(description: "Eb does not match") }
        return ltk
    }

    static func ioCap(_ features: PairingFeatures) -> IOcap {
        IOcap(
            authReq: features.authReq.rawValue, oobDataFlag: features.oobDataPresent ? 1 : 0,
            ioCapability: features.ioCapability.rawValue)
    }

    // MARK: LE legacy pairing

    /// Mconfirm, Sconfirm, Mrand, Srand with `tk`; returns the STK after checking Sconfirm, or nil
    /// when the responder answered Mrand with Pairing Failed (reason in `lastFailure`).
    func legacyExchange(tk: SecretKey128, mrand: Value128) async throws -> SecretKey128? {
        guard let request, let response else { throw InitiatorScriptFailure(description: "no phase 1") }
        let preq = try request.encodedBytes()
        let pres = try response.encodedBytes()
        func c1(_ r: Value128) -> [UInt8] {
            SMPCrypto.c1(
                tk, r, pairingRequest: preq, pairingResponse: pres, initiator: addresses.initiator,
                responder: addresses.responder)!.littleEndianBytes
        }
        try send(SMPPairingConfirm(confirmValue: c1(mrand)))
        let sconfirm = try await expect(SMPPairingConfirm.self)
        try send(SMPPairingRandom(randomValue: mrand.littleEndianBytes))
        switch try await next() {
        case .pairingRandom(let random):
            let srand = Value128(littleEndianBytes: random.randomValue)!
            guard c1(srand) == sconfirm.confirmValue else { throw InitiatorScriptFailure(description: "Sconfirm does not match") }
            return SMPCrypto.s1(tk, srand, mrand)
        case .pairingFailed(let failed):
            lastFailure = failed.reason
            return nil
        case let other:
            throw InitiatorScriptFailure(description: "unexpected \(other.code)")
        }
    }
}
