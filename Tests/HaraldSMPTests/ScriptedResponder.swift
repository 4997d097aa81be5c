import HaraldCodec
import HaraldCore
import HaraldSMP

/// One end of an in-memory SMP channel: what it sends comes out of the other end's `incoming`.
struct MemoryBearer: SMPBearer {
    let incoming: AsyncStream<[UInt8]>
    let toPeer: AsyncStream<[UInt8]>.Continuation
    private let log = Locked<[[UInt8]]>([])

    /// Every PDU this end sent, in order.
    var sent: [[UInt8]] { log.value }

    func send(_ pdu: [UInt8]) async throws {
        log.withLock { $0.append(pdu) }
        toPeer.yield(pdu)
    }

    /// Two connected ends.
    static func pair() -> (MemoryBearer, MemoryBearer) {
        let (toA, aInput) = AsyncStream<[UInt8]>.makeStream()
        let (toB, bInput) = AsyncStream<[UInt8]>.makeStream()
        return (MemoryBearer(incoming: toA, toPeer: bInput), MemoryBearer(incoming: toB, toPeer: aInput))
    }
}

struct ScriptFailure: Error, CustomStringConvertible {
    var description: String
}

/// The responder (peripheral) side of a pairing, scripted step by step by a test with the
/// crypto toolbox: it sends what a test tells it to and checks what it receives.
actor ScriptedResponder {
    private let bearer: MemoryBearer
    private var iterator: AsyncStream<[UInt8]>.Iterator
    /// Every PDU the initiator sent, as received.
    private(set) var received: [[UInt8]] = []

    /// Filled in by ``answerPairingRequest(with:)``: both PDUs of phase 1 as sent.
    private(set) var requestBytes: [UInt8] = []
    private(set) var responseBytes: [UInt8] = []
    private(set) var request: PairingFeatures?

    init(bearer: MemoryBearer) {
        self.bearer = bearer
        self.iterator = bearer.incoming.makeAsyncIterator()
    }

    /// Ends the channel towards the initiator (the link goes away).
    nonisolated func close() { bearer.toPeer.finish() }

    /// The next PDU from the initiator; nil once the channel ended.
    func receiveBytes() async -> [UInt8]? {
        var reading = iterator
        defer { iterator = reading }
        guard let bytes = await reading.next(isolation: self) else { return nil }
        received.append(bytes)
        return bytes
    }

    /// The next PDU, which must be a `T`.
    func expect<T: SMPPDUCodable>(_ type: T.Type) async throws -> T {
        guard let bytes = await receiveBytes() else { throw ScriptFailure(description: "channel closed, wanted \(T.code)") }
        let pdu = try SMPPDU(decoding: bytes)
        guard let value = pdu.as(T.self) else { throw ScriptFailure(description: "got \(pdu.code), wanted \(T.code)") }
        return value
    }

    /// The 128-bit value of the next PDU, which must be a `T`.
    func expectValue<T: SMPPDUCodable>(_ type: T.Type, _ field: KeyPath<T, [UInt8]>) async throws -> Value128 {
        let pdu = try await expect(T.self)
        guard let value = Value128(littleEndianBytes: pdu[keyPath: field]) else { throw ScriptFailure(description: "bad value") }
        return value
    }

    func send(_ pdu: some SMPPDUCodable) throws {
        bearer.toPeer.yield(try pdu.encodedBytes())
    }

    func sendBytes(_ bytes: [UInt8]) { bearer.toPeer.yield(bytes) }

    /// Phase 1: takes the Pairing Request and answers with `features`.
    @discardableResult
    func answerPairingRequest(with features: PairingFeatures) async throws -> PairingFeatures {
        guard let bytes = await receiveBytes() else { throw ScriptFailure(description: "no Pairing Request") }
        guard let pdu = try SMPPDU(decoding: bytes).as(SMPPairingRequest.self) else {
            throw ScriptFailure(description: "not a Pairing Request")
        }
        requestBytes = bytes
        request = pdu.features
        let response = SMPPairingResponse(features)
        responseBytes = try response.encodedBytes()
        sendBytes(responseBytes)
        return pdu.features
    }

    /// LE Secure Connections: takes the initiator's public key and sends ours.
    func exchangePublicKeys(_ keyPair: P256KeyPair) async throws -> P256PublicKey {
        let theirs = try await expect(SMPPairingPublicKey.self)
        try send(SMPPairingPublicKey(x: keyPair.publicKey.x.littleEndianBytes, y: keyPair.publicKey.y.littleEndianBytes))
        return try P256PublicKey(littleEndianBytes: theirs.x + theirs.y)
    }

    /// Just Works / Numeric Comparison: Cb, then Na in, Nb out. Returns Na.
    func commitAndRevealNonce(
        _ nb: Value128, ours: P256PublicKey, initiators: P256PublicKey
    ) async throws -> Value128 {
        try send(SMPPairingConfirm(confirmValue: SMPCrypto.f4(u: ours.x, v: initiators.x, x: nb, z: 0).littleEndianBytes))
        let na = try await expectValue(SMPPairingRandom.self, \.randomValue)
        try send(SMPPairingRandom(randomValue: nb.littleEndianBytes))
        return na
    }

    /// Passkey Entry, all 20 rounds with `passkey` (fresh nonces from `nonce`); checks every
    /// Cai unless `checksInitiator` is false. Returns the last Na and Nb, or nil after sending
    /// Pairing Failed (Confirm Value Failed) for a Cai that does not match.
    func passkeyRounds(
        passkey: @Sendable () async -> UInt32, nonce: () -> Value128, ours: P256PublicKey, initiators: P256PublicKey,
        checksInitiator: Bool = true
    ) async throws -> (Value128, Value128)? {
        var last = (Value128.zero, Value128.zero)
        var key: UInt32?
        for round in 0..<20 {
            let cai = try await expectValue(SMPPairingConfirm.self, \.confirmValue)
            if key == nil { key = await passkey() }
            let ri = UInt8(0x80 | ((key! >> UInt32(round)) & 1))
            let nbi = nonce()
            try send(SMPPairingConfirm(confirmValue: SMPCrypto.f4(u: ours.x, v: initiators.x, x: nbi, z: ri).littleEndianBytes))
            let nai = try await expectValue(SMPPairingRandom.self, \.randomValue)
            if checksInitiator && SMPCrypto.f4(u: initiators.x, v: ours.x, x: nai, z: ri) != cai {
                try send(SMPPairingFailed(reason: .confirmValueFailed))
                return nil
            }
            try send(SMPPairingRandom(randomValue: nbi.littleEndianBytes))
            last = (nai, nbi)
        }
        return last
    }

    /// Stage 2 of LE Secure Connections: checks Ea and answers Eb. Returns the LTK it derived,
    /// or nil after sending Pairing Failed (DHKey Check Failed).
    func checkDHKey(
        keyPair: P256KeyPair, initiators: P256PublicKey, na: Value128, nb: Value128, r: SecretKey128,
        addresses: PairingAddresses, response: PairingFeatures
    ) async throws -> SecretKey128? {
        guard let request else { throw ScriptFailure(description: "no request yet") }
        let dhKey = try keyPair.dhKey(with: initiators)
        let (a, b) = (addresses.initiator, addresses.responder)
        let (macKey, ltk) = SMPCrypto.f5(w: dhKey, n1: na, n2: nb, a1: a, a2: b)
        let ea = try await expectValue(SMPPairingDHKeyCheck.self, \.checkValue)
        let expected = SMPCrypto.f6(w: macKey, n1: na, n2: nb, r: r, ioCap: ioCap(request), a1: a, a2: b)
        guard ea == expected else {
            try send(SMPPairingFailed(reason: .dhKeyCheckFailed))
            return nil
        }
        let eb = SMPCrypto.f6(w: macKey, n1: nb, n2: na, r: r, ioCap: ioCap(response), a1: b, a2: a)
        try send(SMPPairingDHKeyCheck(checkValue: eb.littleEndianBytes))
        return ltk
    }

    /// LE legacy phase 2: Mconfirm in, Sconfirm out, Mrand in (checked), Srand out. Returns Mrand,
    /// or nil after sending Pairing Failed (Confirm Value Failed).
    func legacyConfirmAndRandom(tk: SecretKey128, srand: Value128, addresses: PairingAddresses) async throws -> Value128? {
        let confirm = { (random: Value128) in
            SMPCrypto.c1(
                tk, random, pairingRequest: self.requestBytes, pairingResponse: self.responseBytes,
                initiator: addresses.initiator, responder: addresses.responder)
        }
        let mconfirm = try await expectValue(SMPPairingConfirm.self, \.confirmValue)
        guard let sconfirm = confirm(srand) else { throw ScriptFailure(description: "c1 inputs") }
        try send(SMPPairingConfirm(confirmValue: sconfirm.littleEndianBytes))
        let mrand = try await expectValue(SMPPairingRandom.self, \.randomValue)
        guard confirm(mrand) == mconfirm else {
            try send(SMPPairingFailed(reason: .confirmValueFailed))
            return nil
        }
        try send(SMPPairingRandom(randomValue: srand.littleEndianBytes))
        return mrand
    }

    /// Phase 3, our part: IRK and identity address.
    func distributeIdentity(irk: IdentityResolvingKey, address: BluetoothAddress) throws {
        try send(SMPIdentityInformation(identityResolvingKey: irk))
        try send(SMPIdentityAddressInformation(identityAddress: address))
    }

    private func ioCap(_ features: PairingFeatures) -> IOcap {
        IOcap(
            authReq: features.authReq.rawValue, oobDataFlag: features.oobDataPresent ? 1 : 0,
            ioCapability: features.ioCapability.rawValue)
    }
}

/// Random values chosen by the test, in order (then fresh ones once they run out).
func fixedRandomness(
    nonces: [Value128] = [], keyPair: P256KeyPair = P256KeyPair(), passkey: UInt32 = 0,
    key: SecretKey128 = .zero, word: UInt64 = 0
) -> PairingRandomness {
    let queue = Locked(nonces)
    return PairingRandomness(
        nonce: { queue.withLock { $0.isEmpty ? Value128.random() : $0.removeFirst() } },
        keyPair: { keyPair }, passkey: { passkey }, key: { key }, word: { word })
}

/// Records what the initiator asked the controller to encrypt with.
final class EncryptionRecorder: Sendable {
    struct Call: Sendable, Equatable {
        var key: SecretKey128
        var ediv: UInt16
        var rand: UInt64
    }

    private let state = Locked<[Call]>([])
    var calls: [Call] { state.value }

    var encrypt: SMPInitiator.Encrypt {
        { key, ediv, rand in self.state.withLock { $0.append(Call(key: key, ediv: ediv, rand: rand)) } }
    }
}

/// Records what the agent was shown and answers as told.
final class RecordingAgent: PairingAgent {
    private let state = Locked<(comparisons: [NumericComparisonValue], displayed: [UInt32])>(([], []))
    let acceptsComparison: Bool
    let typedPasskey: UInt32?

    init(acceptsComparison: Bool = true, typedPasskey: UInt32? = nil) {
        self.acceptsComparison = acceptsComparison
        self.typedPasskey = typedPasskey
    }

    var comparisons: [NumericComparisonValue] { state.value.comparisons }
    var displayed: [UInt32] { state.value.displayed }

    func confirmJustWorks() async -> Bool { true }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool {
        state.withLock { $0.comparisons.append(value) }
        return acceptsComparison
    }
    func enterPasskey() async -> UInt32? { typedPasskey }
    func displayPasskey(_ passkey: UInt32) async { state.withLock { $0.displayed.append(passkey) } }
}
