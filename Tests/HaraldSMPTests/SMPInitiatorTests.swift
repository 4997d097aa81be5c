import HaraldCodec
import HaraldCore
import HaraldSMP
import HaraldTestSupport
import Testing

/// The initiator's pairing procedure against a responder each test scripts with the crypto
/// toolbox, over an in-memory channel and a manual clock.
@Suite("SMP initiator")
struct SMPInitiatorTests {
    /// The addresses of the spec's f5 sample (notes/smp.md §8.3): A1 initiator, A2 responder.
    let addresses = PairingAddresses(
        initiator: BluetoothAddress(value: 0x56_12_37_37_BF_CE, kind: .public)!,
        responder: BluetoothAddress(value: 0xA7_13_70_2D_CF_C1, kind: .public)!)
    let na = try! spec128("d5cb8454 d177733e ffffb2ec 712baeab")
    let nb = try! spec128("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf")
    let responderKeyPair = try! P256KeyPair(privateKeyBigEndianBytes: Hex.decode(P256Sample.privateB))
    let ourIRK = IdentityResolvingKey(key: try! specKey("00112233 44556677 8899aabb ccddeeff"))
    let peerIRK = IdentityResolvingKey(key: try! specKey("ec0234a3 57c8ad05 341010a6 0a397d9b"))
    let peerIdentity = BluetoothAddress(value: 0xC0_11_22_33_44_55, kind: .random)!

    /// One pairing under test: the initiator, the scripted responder, and what they share.
    struct Fixture {
        let initiator: SMPInitiator
        let responder: ScriptedResponder
        let initiatorBearer: MemoryBearer
        let encryption: EncryptionRecorder
        let clock: ManualClock

        /// Starts pairing; the task's value is how it ended.
        func start() -> Task<Result<PairingOutcome, PairingError>, Never> {
            Task { [initiator] in
                do throws(PairingError) { return .success(try await initiator.pair()) } catch { return .failure(error) }
            }
        }
    }

    func fixture(
        _ configuration: PairingConfiguration = PairingConfiguration(),
        agent: any PairingAgent = AutomaticPairingAgent(), randomness: PairingRandomness? = nil
    ) -> Fixture {
        let (ours, theirs) = MemoryBearer.pair()
        let encryption = EncryptionRecorder()
        let clock = ManualClock()
        let initiator = SMPInitiator(
            bearer: ours, configuration: configuration, addresses: addresses, agent: agent, clock: clock,
            localKeys: LocalPairingKeys(identityResolvingKey: ourIRK, identityAddress: addresses.initiator),
            randomness: randomness ?? fixedRandomness(nonces: [na], keyPair: .debug), encrypt: encryption.encrypt)
        return Fixture(
            initiator: initiator, responder: ScriptedResponder(bearer: theirs), initiatorBearer: ours,
            encryption: encryption, clock: clock)
    }

    func response(
        _ io: IOCapability, _ authReq: AuthReq = [.bonding, .secureConnections], keySize: Int = 16,
        initiatorKeys: KeyDistribution = [.idKey], responderKeys: KeyDistribution = [.idKey]
    ) -> PairingFeatures {
        PairingFeatures(
            ioCapability: io, authReq: authReq, maxEncryptionKeySize: keySize, initiatorKeyDistribution: initiatorKeys,
            responderKeyDistribution: responderKeys)
    }

    /// The responder's part of LE Secure Connections Just Works up to Eb, from its Pairing
    /// Response on; returns the LTK it derived.
    func respondJustWorks(_ r: ScriptedResponder, _ features: PairingFeatures) async throws -> SecretKey128? {
        try await r.answerPairingRequest(with: features)
        let initiators = try await r.exchangePublicKeys(responderKeyPair)
        let na = try await r.commitAndRevealNonce(nb, ours: responderKeyPair.publicKey, initiators: initiators)
        return try await r.checkDHKey(
            keyPair: responderKeyPair, initiators: initiators, na: na, nb: nb, r: .zero, addresses: addresses,
            response: features)
    }

    func expectFailure(_ expected: PairingError, _ pairing: Task<Result<PairingOutcome, PairingError>, Never>) async {
        switch await pairing.value {
        case .success: Issue.record("pairing succeeded, expected \(expected)")
        case .failure(let error): #expect(error == expected)
        }
    }

    // MARK: - LE Secure Connections

    @Test func secureConnectionsJustWorksEncryptsWithTheSpecsF5LTK() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        let ltk = try await respondJustWorks(f.responder, response(.noInputNoOutput))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()

        let specLTK = try specKey("69867911 69d7cd23 980522b5 94750a38")
        #expect(ltk == specLTK)
        #expect(f.encryption.calls == [.init(key: specLTK, ediv: 0, rand: 0)])
        #expect(result.longTermKey == LongTermKey(key: specLTK, isAuthenticated: false, isSecureConnections: true))
        #expect(result.method == PairingMethod(isSecureConnections: true, model: .justWorks))
        #expect(result.isBonding)
    }

    @Test func secureConnectionsIgnoresEncKeyAndTakesTheIdentity() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await respondJustWorks(f.responder, response(.noInputNoOutput, responderKeys: [.encKey, .idKey]))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()
        #expect(result.peerIdentityResolvingKey == peerIRK)
        #expect(result.peerIdentityAddress == peerIdentity)
    }

    @Test func keyDistributionSendsOurIdentityAfterTheResponders() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await respondJustWorks(f.responder, response(.noInputNoOutput))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let irk = try await f.responder.expect(SMPIdentityInformation.self)
        let address = try await f.responder.expect(SMPIdentityAddressInformation.self)
        _ = try await outcome.value.get()
        #expect(irk.identityResolvingKey == ourIRK)
        #expect(address.identityAddress == addresses.initiator)
    }

    @Test func numericComparisonShowsG2OfBothKeysAndNonces() async throws {
        let agent = RecordingAgent()
        let f = fixture(
            PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]), agent: agent)
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await respondJustWorks(f.responder, response(.displayYesNo, [.bonding, .mitm, .secureConnections]))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()

        let expected = SMPCrypto.g2(u: P256KeyPair.debug.publicKey.x, v: responderKeyPair.publicKey.x, x: na, y: nb)
        #expect(agent.comparisons == [NumericComparisonValue(g2: expected)])
        #expect(result.method == PairingMethod(isSecureConnections: true, model: .numericComparison))
        #expect(result.longTermKey?.isAuthenticated == true)
    }

    @Test func numericComparisonRefusedFailsWithNumericComparisonFailed() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]),
            agent: RecordingAgent(acceptsComparison: false))
        let outcome = f.start()
        defer { f.responder.close() }
        let features = response(.displayYesNo, [.bonding, .mitm, .secureConnections])
        try await f.responder.answerPairingRequest(with: features)
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        _ = try await f.responder.commitAndRevealNonce(nb, ours: responderKeyPair.publicKey, initiators: initiators)
        await expectFailure(.failedHere(.numericComparisonFailed), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x0C])
        #expect(f.encryption.calls.isEmpty)
    }

    /// KeyboardOnly initiator, DisplayOnly responder: the responder displays, we type.
    @Test func passkeyEntryWithTheTypedPasskeyRunsTwentyRounds() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: RecordingAgent(typedPasskey: 123_456), randomness: fixedRandomness(keyPair: .debug))
        let outcome = f.start()
        defer { f.responder.close() }
        let features = response(.displayOnly, [.bonding, .mitm, .secureConnections])
        try await f.responder.answerPairingRequest(with: features)
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        let nonces = try #require(
            await f.responder.passkeyRounds(
                passkey: { 123_456 }, nonce: { Value128.random() }, ours: responderKeyPair.publicKey, initiators: initiators))
        let passkey = try #require(SecretKey128(passkey: 123_456))
        let ltk = try #require(
            await f.responder.checkDHKey(
                keyPair: responderKeyPair, initiators: initiators, na: nonces.0, nb: nonces.1, r: passkey,
                addresses: addresses, response: features))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()

        #expect(result.method == PairingMethod(isSecureConnections: true, model: .passkeyEntry(.responderDisplays)))
        #expect(result.longTermKey?.key == ltk)
        #expect(f.initiatorBearer.sent.filter { $0.first == SMPCode.pairingConfirm.rawValue }.count == 20)
    }

    /// DisplayOnly initiator, KeyboardOnly responder: we display, the person types on the peer.
    @Test func passkeyEntryShowsThePasskeyThePeerTypes() async throws {
        let agent = RecordingAgent()
        let f = fixture(
            PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: agent, randomness: fixedRandomness(keyPair: .debug, passkey: 654_321))
        let outcome = f.start()
        defer { f.responder.close() }
        let features = response(.keyboardOnly, [.bonding, .mitm, .secureConnections])
        try await f.responder.answerPairingRequest(with: features)
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        let nonces = try #require(
            await f.responder.passkeyRounds(
                passkey: { agent.displayed.first ?? 0 }, nonce: { Value128.random() }, ours: responderKeyPair.publicKey,
                initiators: initiators))
        _ = try await f.responder.checkDHKey(
            keyPair: responderKeyPair, initiators: initiators, na: nonces.0, nb: nonces.1,
            r: try #require(SecretKey128(passkey: 654_321)), addresses: addresses, response: features)
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()
        #expect(agent.displayed == [654_321])
        #expect(result.method.model == .passkeyEntry(.initiatorDisplays))
    }

    @Test func passkeyEntryWithAWrongPasskeyFailsOurCheckWithConfirmValueFailed() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: RecordingAgent(typedPasskey: 123_456), randomness: fixedRandomness(keyPair: .debug))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.displayOnly, [.bonding, .mitm, .secureConnections]))
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        // A responder that does not check our commitments, with a passkey of the other parity:
        // round 0 is where we notice.
        _ = try? await f.responder.passkeyRounds(
            passkey: { 123_457 }, nonce: { Value128.random() }, ours: responderKeyPair.publicKey, initiators: initiators,
            checksInitiator: false)
        await expectFailure(.failedHere(.confirmValueFailed), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x04])
        #expect(f.initiatorBearer.sent.filter { $0.first == SMPCode.pairingConfirm.rawValue }.count == 1)
    }

    @Test func passkeyEntryWithAWrongPasskeyRefusedByThePeerEndsWithItsReason() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: RecordingAgent(typedPasskey: 123_456), randomness: fixedRandomness(keyPair: .debug))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.displayOnly, [.bonding, .mitm, .secureConnections]))
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        let nonces = try await f.responder.passkeyRounds(
            passkey: { 123_457 }, nonce: { Value128.random() }, ours: responderKeyPair.publicKey, initiators: initiators)
        #expect(nonces == nil)
        await expectFailure(.failedByPeer(.confirmValueFailed), outcome)
    }

    @Test func passkeyEntryRefusedByThePersonFailsWithPasskeyEntryFailed() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]),
            agent: RecordingAgent(typedPasskey: nil))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.displayOnly, [.bonding, .mitm, .secureConnections]))
        _ = try await f.responder.exchangePublicKeys(responderKeyPair)
        await expectFailure(.failedHere(.passkeyEntryFailed), outcome)
    }

    @Test func aPeerPublicKeyOffTheCurveFailsWithDHKeyCheckFailed() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput))
        _ = try await f.responder.expect(SMPPairingPublicKey.self)
        var y = responderKeyPair.publicKey.y.littleEndianBytes
        y[0] ^= 0x01
        try await f.responder.send(SMPPairingPublicKey(x: responderKeyPair.publicKey.x.littleEndianBytes, y: y))
        await expectFailure(.failedHere(.dhKeyCheckFailed), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x0B])
    }

    @Test func ourOwnPublicKeySentBackFailsWithDHKeyCheckFailed() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput))
        let ours = try await f.responder.expect(SMPPairingPublicKey.self)
        try await f.responder.send(ours)
        await expectFailure(.failedHere(.dhKeyCheckFailed), outcome)
    }

    @Test func aWrongDHKeyCheckFromThePeerFailsWithDHKeyCheckFailed() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput))
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        _ = try await f.responder.commitAndRevealNonce(nb, ours: responderKeyPair.publicKey, initiators: initiators)
        _ = try await f.responder.expect(SMPPairingDHKeyCheck.self)
        try await f.responder.send(SMPPairingDHKeyCheck(checkValue: [UInt8](repeating: 0x42, count: 16)))
        await expectFailure(.failedHere(.dhKeyCheckFailed), outcome)
        #expect(f.encryption.calls.isEmpty)
    }

    // MARK: - LE legacy pairing

    @Test func legacyJustWorksEncryptsWithS1OfZeroTKThenTakesTheDistributedLTK() async throws {
        let mrand = try spec128("01020304 05060708 99AABBCC DDEEFF00")
        let srand = try spec128("000F0E0D 0C0B0A09 11223344 55667788")
        let f = fixture(PairingConfiguration(authReq: [.bonding]), randomness: fixedRandomness(nonces: [mrand]))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput, [.bonding], responderKeys: [.encKey, .idKey]))
        let checked = try await f.responder.legacyConfirmAndRandom(tk: .zero, srand: srand, addresses: addresses)
        let peerLTK = try specKey("0f0e0d0c 0b0a0908 07060504 03020100")
        try await f.responder.send(SMPEncryptionInformation(longTermKey: peerLTK))
        try await f.responder.send(SMPCentralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()

        #expect(checked == mrand)
        // The spec's s1 sample: k = 0, r1 = Srand, r2 = Mrand.
        let stk = try specKey("9a1fe1f0 e8b0f49b 5b4216ae 796da062")
        #expect(f.encryption.calls == [.init(key: stk, ediv: 0, rand: 0)])
        #expect(result.shortTermKey == stk)
        #expect(
            result.longTermKey
                == LongTermKey(
                    key: peerLTK, ediv: 0x1234, rand: 0x0102_0304_0506_0708, isAuthenticated: false,
                    isSecureConnections: false))
        #expect(result.peerIdentityAddress == peerIdentity)
    }

    /// KeyboardDisplay initiator, DisplayOnly responder: the responder displays, we type.
    @Test func legacyPasskeyEntryUsesThePasskeyAsTK() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardDisplay, authReq: [.bonding, .mitm]),
            agent: RecordingAgent(typedPasskey: 999_999))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.displayOnly, [.bonding, .mitm]))
        let tk = try #require(SecretKey128(passkey: 999_999))
        let srand = Value128.random()
        let mrand = try #require(await f.responder.legacyConfirmAndRandom(tk: tk, srand: srand, addresses: addresses))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()
        #expect(f.encryption.calls == [.init(key: SMPCrypto.s1(tk, srand, mrand), ediv: 0, rand: 0)])
        #expect(result.method == PairingMethod(isSecureConnections: false, model: .passkeyEntry(.responderDisplays)))
    }

    @Test func legacyPasskeyEntryWithAWrongPasskeyFailsWithConfirmValueFailed() async throws {
        let f = fixture(
            PairingConfiguration(ioCapability: .keyboardDisplay, authReq: [.bonding, .mitm]),
            agent: RecordingAgent(typedPasskey: 999_999))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.displayOnly, [.bonding, .mitm]))
        let result = try await f.responder.legacyConfirmAndRandom(
            tk: try #require(SecretKey128(passkey: 1)), srand: .random(), addresses: addresses)
        #expect(result == nil)
        await expectFailure(.failedByPeer(.confirmValueFailed), outcome)
    }

    @Test func legacyKeysShorterThanSixteenOctetsAreMasked() async throws {
        // 7-octet keys only with the explicit, weakened minimum.
        let f = fixture(PairingConfiguration(authReq: [.bonding], minEncryptionKeySize: 7))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput, [.bonding], keySize: 7))
        let srand = Value128.random()
        let mrand = try #require(await f.responder.legacyConfirmAndRandom(tk: .zero, srand: srand, addresses: addresses))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let result = try await outcome.value.get()
        let full = SMPCrypto.s1(.zero, srand, mrand).withUnsafeKeyBytes { $0 }
        let masked = try #require(SecretKey128(littleEndianBytes: Array(full[0..<7]) + [UInt8](repeating: 0, count: 9)))
        #expect(f.encryption.calls.map(\.key) == [masked])
        #expect(result.keySize == 7)
    }

    @Test func legacyKeyDistributionSendsOurLTKWithEDIVAndRandThenOurIdentity() async throws {
        let ourLTK = try specKey("ffeeddcc bbaa9988 77665544 33221100")
        let f = fixture(
            PairingConfiguration(authReq: [.bonding], initiatorKeys: [.encKey, .idKey]),
            randomness: fixedRandomness(key: ourLTK, word: 0x0A0B_0C0D_0E0F_1011))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(
            with: response(.noInputNoOutput, [.bonding], initiatorKeys: [.encKey, .idKey], responderKeys: []))
        _ = try await f.responder.legacyConfirmAndRandom(tk: .zero, srand: .random(), addresses: addresses)
        let information = try await f.responder.expect(SMPEncryptionInformation.self)
        let identification = try await f.responder.expect(SMPCentralIdentification.self)
        _ = try await f.responder.expect(SMPIdentityInformation.self)
        _ = try await f.responder.expect(SMPIdentityAddressInformation.self)
        let result = try await outcome.value.get()
        #expect(information.longTermKey == ourLTK)
        #expect(identification == SMPCentralIdentification(ediv: 0x1011, rand: 0x0A0B_0C0D_0E0F_1011))
        #expect(result.localLongTermKey?.key == ourLTK)
        #expect(result.longTermKey == nil)
    }

    @Test func aSigningKeyIsTakenAfterTheIdentity() async throws {
        let csrk = ConnectionSignatureResolvingKey(key: try specKey("01010101 02020202 03030303 04040404"))
        let f = fixture(PairingConfiguration(responderKeys: [.idKey, .signKey]))
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await respondJustWorks(f.responder, response(.noInputNoOutput, responderKeys: [.idKey, .signKey]))
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        try await f.responder.send(SMPSigningInformation(signatureKey: csrk))
        let result = try await outcome.value.get()
        #expect(result.peerSignatureKey == csrk)
    }

    @Test func secureConnectionsOnlyRefusesLegacyWithAuthenticationRequirements() async throws {
        let f = fixture(PairingConfiguration(secureConnectionsOnly: true))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput, [.bonding]))
        await expectFailure(.failedHere(.authenticationRequirements), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x03])
    }

    // MARK: - Phase 1 checks

    @Test func aKeySizeBelowOurMinimumFailsWithEncryptionKeySize() async throws {
        let f = fixture(PairingConfiguration(minEncryptionKeySize: 16))
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput, keySize: 7))
        await expectFailure(.encryptionKeySize(offered: 7, required: 16), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x06])
    }

    @Test func aResponseAddingKeysWeDidNotAskForFailsWithInvalidParameters() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: response(.noInputNoOutput, responderKeys: [.idKey, .signKey]))
        await expectFailure(.failedHere(.invalidParameters), outcome)
    }

    @Test func ourRequestCarriesTheConfiguration() async throws {
        let f = fixture(PairingConfiguration(ioCapability: .keyboardDisplay, authReq: [.bonding, .mitm, .secureConnections]))
        let outcome = f.start()
        defer { f.responder.close() }
        let request = try await f.responder.expect(SMPPairingRequest.self)
        try await f.responder.send(SMPPairingFailed(reason: .pairingNotSupported))
        _ = await outcome.value
        // KeyboardDisplay, no OOB, Bonding|MITM|SC, 16 octets, IdKey from us, EncKey|IdKey from the peer.
        #expect(try request.encodedBytes() == [0x01, 0x04, 0x00, 0x0D, 0x10, 0x02, 0x03])
    }

    // MARK: - Failures and the SMP timeout

    @Test func thePeersPairingFailedEndsPairingWithItsReason() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        try await f.responder.send(SMPPairingFailed(reason: .pairingNotSupported))
        await expectFailure(.failedByPeer(.pairingNotSupported), outcome)
        #expect(f.initiatorBearer.sent.count == 1)
    }

    @Test func noAnswerWithinTheSMPTimeoutTimesOutAndSendsNothingMore() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.clock.waitForSleepers(atLeast: 1)
        f.clock.advance(by: .seconds(30))
        await expectFailure(.timedOut, outcome)
        #expect(f.initiatorBearer.sent.count == 1)
    }

    @Test func afterATimeoutTheInitiatorIsDead() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.clock.waitForSleepers(atLeast: 1)
        f.clock.advance(by: .seconds(30))
        _ = await outcome.value
        await expectFailure(.timedOut, f.start())
        #expect(f.initiatorBearer.sent.count == 1)
    }

    @Test func afterATimeoutPDUsFromThePeerGetNoAnswer() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.clock.waitForSleepers(atLeast: 1)
        f.clock.advance(by: .seconds(30))
        await expectFailure(.timedOut, outcome)
        // A late response, a malformed PDU and an unknown code: none is answered, not even with
        // Pairing Failed.
        try await f.responder.send(SMPPairingResponse(response(.noInputNoOutput)))
        await f.responder.sendBytes([0x0C, 0x01])
        await f.responder.sendBytes([0x7F])
        await expectFailure(.timedOut, f.start())
        #expect(f.initiatorBearer.sent.count == 1)
    }

    /// A Numeric Comparison pairing that has reached the question to a person who never
    /// answers: the initiator waits there, with its Pairing Request, Public Key and Random sent.
    func pairingAskingASilentPerson() async throws -> (Fixture, Task<Result<PairingOutcome, PairingError>, Never>) {
        let (asked, askedContinuation) = AsyncStream<Void>.makeStream()
        let f = fixture(
            PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]),
            agent: SilentAgent(asked: askedContinuation))
        let outcome = f.start()
        try await f.responder.answerPairingRequest(with: response(.displayYesNo, [.bonding, .mitm, .secureConnections]))
        let initiators = try await f.responder.exchangePublicKeys(responderKeyPair)
        _ = try await f.responder.commitAndRevealNonce(nb, ours: responderKeyPair.publicKey, initiators: initiators)
        var questions = asked.makeAsyncIterator()
        _ = await questions.next()
        return (f, outcome)
    }

    @Test func aPersonWhoNeverAnswersTimesOut() async throws {
        let (f, outcome) = try await pairingAskingASilentPerson()
        defer { f.responder.close() }
        // Waiting for the person is the only wait left: its timer.
        await f.clock.waitForSleepers(atLeast: 1)
        f.clock.advance(by: .seconds(30))
        await expectFailure(.timedOut, outcome)
        // Pairing Request, Public Key, Random: nothing after the person was asked.
        #expect(f.initiatorBearer.sent.count == 3)
    }

    @Test func cancellingTheCallerWhileThePersonIsAskedEndsPairingWithLinkLostAtOnce() async throws {
        let (f, outcome) = try await pairingAskingASilentPerson()
        defer { f.responder.close() }
        // No clock advance: the person never answers and the timer never fires, so only the
        // cancellation can end the wait.
        outcome.cancel()
        await expectFailure(.linkLost("pairing was cancelled"), outcome)
        #expect(f.initiatorBearer.sent.count == 3)
    }

    @Test func aMalformedPDUIsAnsweredWithInvalidParameters() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.responder.sendBytes([0x02, 0x03, 0x00])  // a Pairing Response four octets short
        await expectFailure(.failedHere(.invalidParameters), outcome)
        #expect(f.initiatorBearer.sent.last == [0x05, 0x0A])
    }

    @Test func anUnknownCodeIsAnsweredWithCommandNotSupported() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.responder.sendBytes([0x42, 0x00])
        await expectFailure(.failedHere(.commandNotSupported), outcome)
    }

    @Test func aPDUOutOfOrderFailsWithUnspecifiedReason() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        try await f.responder.send(SMPPairingConfirm(confirmValue: [UInt8](repeating: 0, count: 16)))
        await expectFailure(.failedHere(.unspecifiedReason), outcome)
    }

    @Test func identityAddressBeforeIdentityInformationFailsWithUnspecifiedReason() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await respondJustWorks(f.responder, response(.noInputNoOutput))
        try await f.responder.send(SMPIdentityAddressInformation(identityAddress: peerIdentity))
        try await f.responder.send(SMPIdentityInformation(identityResolvingKey: peerIRK))
        await expectFailure(.failedHere(.unspecifiedReason), outcome)
    }

    @Test func aSecurityRequestDuringPairingIsIgnored() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        let features = response(.noInputNoOutput)
        _ = try await f.responder.expect(SMPPairingRequest.self)
        try await f.responder.send(SMPSecurityRequest(authReq: [.bonding]))
        await f.responder.sendBytes(try SMPPairingResponse(features).encodedBytes())
        _ = try await f.responder.expect(SMPPairingPublicKey.self)
        // Far enough: the Security Request did not end the pairing.
        #expect(f.initiatorBearer.sent.count == 2)
        f.responder.close()
        _ = await outcome.value
    }

    @Test func cancellingTheCallerEndsPairingWithLinkLost() async throws {
        let f = fixture()
        let outcome = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        outcome.cancel()
        await expectFailure(.linkLost("pairing was cancelled"), outcome)
        #expect(f.initiatorBearer.sent.count == 1)
    }

    @Test func theChannelClosingEndsPairingWithLinkLost() async throws {
        let f = fixture()
        let outcome = f.start()
        _ = try await f.responder.expect(SMPPairingRequest.self)
        f.responder.close()
        await expectFailure(.linkLost("the SMP channel closed"), outcome)
    }
}

/// An agent whose person never answers; it reports each question on `asked`.
struct SilentAgent: PairingAgent {
    let asked: AsyncStream<Void>.Continuation

    func confirmJustWorks() async -> Bool { await never(false) }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { await never(false) }
    func enterPasskey() async -> UInt32? { await never(nil) }
    func displayPasskey(_ passkey: UInt32) async {}

    /// Waits until cancelled.
    private func never<T>(_ value: T) async -> T {
        asked.yield()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        for await _ in stream {}
        continuation.finish()  // keeps the stream open until then
        return value
    }
}
