import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Logging
import Testing

@testable import HaraldSMP

// Hostile peers against both pairing roles: every rule of "secure by default" (issue 25) that
// the Security Manager enforces, with the peer scripted by the crypto toolbox.

private let initiatorAddress = BluetoothAddress(value: 0x56_12_37_37_BF_CE, kind: .public)!
private let responderAddress = BluetoothAddress(value: 0xA7_13_70_2D_CF_C1, kind: .public)!
private let addresses = PairingAddresses(initiator: initiatorAddress, responder: responderAddress)
private let peerIRK = IdentityResolvingKey(key: try! specKey("ec0234a3 57c8ad05 341010a6 0a397d9b"))
private let peerIdentity = BluetoothAddress(value: 0xC0_11_22_33_44_55, kind: .random)!

private func pairingRequest(
    io: IOCapability = .noInputNoOutput, authReq: AuthReq = [.bonding, .secureConnections], maxKeySize: Int = 16,
    initiatorKeys: KeyDistribution = [], responderKeys: KeyDistribution = []
) -> SMPPairingRequest {
    SMPPairingRequest(
        PairingFeatures(
            ioCapability: io, authReq: authReq, maxEncryptionKeySize: maxKeySize, initiatorKeyDistribution: initiatorKeys,
            responderKeyDistribution: responderKeys))
}

private func responseFeatures(
    _ io: IOCapability = .noInputNoOutput, _ authReq: AuthReq = [.bonding, .secureConnections], keySize: Int = 16
) -> PairingFeatures {
    PairingFeatures(
        ioCapability: io, authReq: authReq, maxEncryptionKeySize: keySize, initiatorKeyDistribution: [],
        responderKeyDistribution: [.idKey])
}

/// An initiator under test against a scripted responder, on a manual clock.
private struct InitiatorUnderTest {
    let initiator: SMPInitiator
    let responder: ScriptedResponder
    let bearer: MemoryBearer
    let clock: ManualClock
    let ownKeyPair: P256KeyPair

    init(_ configuration: PairingConfiguration = PairingConfiguration(), ownKeyPair: P256KeyPair = P256KeyPair()) {
        let (ours, theirs) = MemoryBearer.pair()
        let clock = ManualClock()
        self.clock = clock
        bearer = ours
        self.ownKeyPair = ownKeyPair
        initiator = SMPInitiator(
            bearer: ours, configuration: configuration, addresses: addresses, agent: AutomaticPairingAgent(), clock: clock,
            localKeys: nil, randomness: fixedRandomness(keyPair: ownKeyPair), encrypt: EncryptionRecorder().encrypt)
        responder = ScriptedResponder(bearer: theirs)
    }

    func start() -> Task<Result<PairingOutcome, PairingError>, Never> {
        Task { [initiator] in
            do throws(PairingError) { return .success(try await initiator.pair()) } catch { return .failure(error) }
        }
    }
}

private func failure(of pairing: Task<Result<PairingOutcome, PairingError>, Never>) async -> PairingError? {
    if case .failure(let error) = await pairing.value { return error }
    return nil
}

// MARK: - 1. Key size (KNOB)

@Suite("SMP hardening: encryption key size (KNOB)")
struct SMPKeySizeHardeningTests {
    @Test func theDefaultsRequireSixteenOctetsAndWeakenNothing() {
        let defaults = PairingConfiguration()
        #expect(defaults.minEncryptionKeySize == 16)
        #expect(defaults.requiredKeySize == 16)
        #expect(defaults.weakenings.isEmpty)
        #expect(!defaults.acceptsDebugKeys)
        // Secure Connections Only mode requires 16 octets whatever the minimum says.
        #expect(PairingConfiguration(minEncryptionKeySize: 7, secureConnectionsOnly: true).requiredKeySize == 16)
        // Out-of-range minimums are kept within the spec's 7…16.
        #expect(PairingConfiguration(minEncryptionKeySize: 3).requiredKeySize == 7)
    }

    @Test(arguments: [7, 15])
    func theInitiatorRefusesAResponseOfferingLessThanSixteenOctets(offered: Int) async throws {
        let f = InitiatorUnderTest()
        let pairing = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: responseFeatures(keySize: offered))
        let error = await failure(of: pairing)
        #expect(error == .encryptionKeySize(offered: offered, required: 16))
        #expect(f.bearer.sent.last == [0x05, 0x06])
        let text = try #require(error).description
        #expect(text.contains("\(offered) octets") && text.contains("16"))
    }

    @Test(arguments: [7, 15])
    func theResponderRefusesARequestOfferingLessThanSixteenOctets(offered: Int) async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(pairingRequest(maxKeySize: offered))
        #expect(try await harness.initiator.expectFailure() == .encryptionKeySize)
        await #expect(throws: PairingError.encryptionKeySize(offered: offered, required: 16)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingFailed)])
    }

    @Test func theResponderRefusesWhenItsOwnMaximumIsBelowTheMinimum() async throws {
        let harness = ResponderUnderTest(configuration: PairingConfiguration(maxEncryptionKeySize: 10))
        let pairing = harness.start(pairingRequest())
        #expect(try await harness.initiator.expectFailure() == .encryptionKeySize)
        await #expect(throws: PairingError.encryptionKeySize(offered: 10, required: 16)) { try await pairing.value }
    }

    @Test func theErrorNamesBothKeySizesAndCountsAsAFailedAttempt() {
        let error = PairingError.encryptionKeySize(offered: 7, required: 16)
        #expect(error.description.contains("7 octets"))
        #expect(error.description.contains("16 are required"))
        #expect(error.reasonSentHere == .encryptionKeySize)
        #expect(error.countsAsFailedAttempt)
    }

    /// A shorter minimum is the explicit opt-in: it pairs, logs a warning once per configuration,
    /// and the short key never counts as authenticated, even from Numeric Comparison.
    @Test func anExplicitShortMinimumPairsButTheKeyIsNeverAuthenticated() async throws {
        let harness = ResponderUnderTest(
            configuration: PairingConfiguration(
                ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections], minEncryptionKeySize: 7))
        let pairing = harness.start(pairingRequest(io: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections], maxKeySize: 10))
        let initiator = harness.initiator
        try await initiator.expectResponse()
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        let (na, nb) = try await initiator.justWorksNonces(state, na: .random())
        _ = try await initiator.checkDHKey(state, na: na, nb: nb, r: .zero)
        let outcome = try await pairing.value

        #expect(outcome.method == PairingMethod(isSecureConnections: true, model: .numericComparison))
        #expect(outcome.keySize == 10)
        #expect(outcome.longTermKey?.isAuthenticated == false)
        #expect(outcome.securityLevel == .encrypted)
        #expect(outcome.longTermKey?.securityLevel == .encrypted)
    }

    @Test func aWeakenedConfigurationIsLoggedOnceAsAWarning() {
        let records = LogRecords()
        let warnings = PairingWarnings(logger: records.logger)
        let weak = PairingConfiguration(minEncryptionKeySize: 7)
        #expect(weak.weakenings.count == 1)
        #expect(warnings.noteUse(of: weak, role: "responder"))
        #expect(!warnings.noteUse(of: weak, role: "responder"))
        #expect(!warnings.noteUse(of: PairingConfiguration(), role: "initiator"))
        #expect(records.count(level: .warning) == 1)
        #expect(records.contains(level: .warning, "7 octets"))
        // Another weakened configuration gets its own warning.
        #expect(warnings.noteUse(of: PairingConfiguration(acceptsDebugKeys: true), role: "initiator"))
        #expect(records.contains(level: .warning, "debug public key"))
    }
}

// MARK: - 2. Levels and Secure Connections Only mode

@Suite("SMP hardening: security levels and Secure Connections Only mode")
struct SMPSecureConnectionsOnlyTests {
    @Test func thePresetRequiresSecureConnectionsSixteenOctetsAndMITMWhereTheIOAllows() {
        let display = PairingConfiguration.secureConnectionsOnlyMode(ioCapability: .displayYesNo)
        #expect(display.secureConnectionsOnly)
        #expect(display.authReq == [.bonding, .mitm, .secureConnections])
        #expect(display.requiredKeySize == 16 && display.maxEncryptionKeySize == 16)
        #expect(display.weakenings.isEmpty)
        let headless = PairingConfiguration.secureConnectionsOnlyMode()
        #expect(headless.authReq == [.bonding, .secureConnections])
        let security = SecurityConfiguration.secureConnectionsOnly(bonds: InMemoryBondStore(), ioCapability: .keyboardDisplay)
        #expect(security.pairing == .secureConnectionsOnlyMode(ioCapability: .keyboardDisplay))
    }

    @Test func theInitiatorSetsTheSCBitInSecureConnectionsOnlyMode() async throws {
        let f = InitiatorUnderTest(PairingConfiguration(authReq: [.bonding], secureConnectionsOnly: true))
        let pairing = f.start()
        let request = try await f.responder.expect(SMPPairingRequest.self)
        #expect(request.features.authReq.contains(.secureConnections))
        f.responder.close()
        _ = await pairing.value
    }

    @Test func theInitiatorRefusesALegacyOnlyPeerWithAuthenticationRequirements() async throws {
        let f = InitiatorUnderTest(.secureConnectionsOnlyMode())
        let pairing = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: responseFeatures(.noInputNoOutput, [.bonding]))
        #expect(await failure(of: pairing) == .failedHere(.authenticationRequirements))
        #expect(f.bearer.sent.last == [0x05, 0x03])
    }

    @Test func theResponderRefusesALegacyOnlyPeerWithAuthenticationRequirements() async throws {
        let harness = ResponderUnderTest(configuration: .secureConnectionsOnlyMode())
        let pairing = harness.start(pairingRequest(authReq: [.bonding]))
        #expect(try await harness.initiator.expectFailure() == .authenticationRequirements)
        await #expect(throws: PairingError.failedHere(.authenticationRequirements)) { try await pairing.value }
    }

    @Test func levelFourNeedsAuthenticatedSecureConnectionsWithSixteenOctets() {
        let nc = PairingMethod(isSecureConnections: true, model: .numericComparison)
        let legacyPasskey = PairingMethod(isSecureConnections: false, model: .passkeyEntry(.bothInput))
        #expect(nc.securityLevel(keySize: 16) == .authenticatedSecureConnections)
        #expect(legacyPasskey.securityLevel(keySize: 16) == .authenticated)
        for size in 7...15 {
            #expect(nc.securityLevel(keySize: size) == .encrypted)
            #expect(legacyPasskey.securityLevel(keySize: size) == .encrypted)
        }
    }
}

// MARK: - 3. The debug public key

@Suite("SMP hardening: the debug public key")
struct SMPDebugKeyTests {
    @Test func theResponderRefusesTheDebugKeyBeforeSendingItsOwn() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(pairingRequest())
        try await harness.initiator.expectResponse()
        let debug = P256KeyPair.debug.publicKey
        try harness.initiator.send(SMPPairingPublicKey(x: debug.x.littleEndianBytes, y: debug.y.littleEndianBytes))
        #expect(try await harness.initiator.expectFailure() == .dhKeyCheckFailed)
        await #expect(throws: PairingError.failedHere(.dhKeyCheckFailed)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingResponse), .sent(.pairingFailed)])
    }

    @Test func theInitiatorRefusesTheDebugKey() async throws {
        let f = InitiatorUnderTest()
        let pairing = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: responseFeatures())
        _ = try await f.responder.exchangePublicKeys(.debug)
        #expect(await failure(of: pairing) == .failedHere(.dhKeyCheckFailed))
        #expect(f.bearer.sent.last == [0x05, 0x0B])
    }

    /// With the debug option the pairing completes, says so, and is never a bond.
    @Test func theInitiatorAcceptsTheDebugKeyOnlyWhenToldAndNeverBondsWithIt() async throws {
        let f = InitiatorUnderTest(PairingConfiguration(acceptsDebugKeys: true))
        let pairing = f.start()
        defer { f.responder.close() }
        let features = responseFeatures()
        try await f.responder.answerPairingRequest(with: features)
        let initiators = try await f.responder.exchangePublicKeys(.debug)
        let nb = Value128.random()
        let na = try await f.responder.commitAndRevealNonce(nb, ours: P256KeyPair.debug.publicKey, initiators: initiators)
        _ = try await f.responder.checkDHKey(
            keyPair: .debug, initiators: initiators, na: na, nb: nb, r: .zero, addresses: addresses, response: features)
        try await f.responder.distributeIdentity(irk: peerIRK, address: peerIdentity)
        let outcome = try await pairing.value.get()
        #expect(outcome.usedDebugKey)
        #expect(!outcome.isBonding)
        // Setting isBonding cannot turn it into a bond either.
        var edited = outcome
        edited.isBonding = true
        #expect(!edited.isBonding)
    }

    @Test func aPairingWithoutTheDebugKeyBondsAsAskedAndSaysSo() {
        let outcome = PairingOutcome(
            longTermKey: nil, shortTermKey: nil, localLongTermKey: nil, peerIdentityResolvingKey: nil, peerIdentityAddress: nil,
            peerSignatureKey: nil, method: PairingMethod(isSecureConnections: true, model: .justWorks), keySize: 16, isBonding: true)
        #expect(outcome.isBonding && !outcome.usedDebugKey)
    }
}

// MARK: - 4. Reflection (CVE-2020-26558)

@Suite("SMP hardening: a reflected public key (CVE-2020-26558)")
struct SMPReflectionTests {
    /// Our key, and its negation (x, p − y): both have our X and both are refused.
    static func reflections(of key: P256PublicKey) throws -> [P256PublicKey] { [key, negatedPublicKey(key)] }

    @Test func theNegationIsAnotherValidPointWithTheSameX() throws {
        let key = P256KeyPair().publicKey
        let other = negatedPublicKey(key)
        #expect(other != key)
        #expect(other.x == key.x)
        #expect(negatedPublicKey(other) == key)
    }

    @Test(arguments: [false, true])
    func theResponderRefusesItsOwnXWithEitherY(negatedY: Bool) async throws {
        let keyPair = P256KeyPair()
        let harness = ResponderUnderTest(keyPair: keyPair)
        let pairing = harness.start(pairingRequest())
        try await harness.initiator.expectResponse()
        let reflected = negatedY ? negatedPublicKey(keyPair.publicKey) : keyPair.publicKey
        try harness.initiator.send(SMPPairingPublicKey(x: reflected.x.littleEndianBytes, y: reflected.y.littleEndianBytes))
        #expect(try await harness.initiator.expectFailure() == .dhKeyCheckFailed)
        await #expect(throws: PairingError.failedHere(.dhKeyCheckFailed)) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingResponse), .sent(.pairingFailed)])
    }

    @Test(arguments: [false, true])
    func theInitiatorRefusesItsOwnXWithEitherY(negatedY: Bool) async throws {
        let keyPair = P256KeyPair()
        let f = InitiatorUnderTest(ownKeyPair: keyPair)
        let pairing = f.start()
        defer { f.responder.close() }
        try await f.responder.answerPairingRequest(with: responseFeatures())
        _ = try await f.responder.expect(SMPPairingPublicKey.self)
        let reflected = negatedY ? negatedPublicKey(keyPair.publicKey) : keyPair.publicKey
        try await f.responder.send(SMPPairingPublicKey(x: reflected.x.littleEndianBytes, y: reflected.y.littleEndianBytes))
        #expect(await failure(of: pairing) == .failedHere(.dhKeyCheckFailed))
        #expect(f.bearer.sent.last == [0x05, 0x0B])
        // Nothing after the public key: no confirm, no random.
        #expect(f.bearer.sent.map(\.first) == [0x01, 0x0C, 0x05])
    }
}

// MARK: - 5. Constant-time comparison

@Suite("SMP hardening: constant-time comparison")
struct ConstantTimeTests {
    let value: [UInt8] = Array(0..<16)

    @Test func equalValuesCompareEqual() {
        #expect(ConstantTime.equal(value, value))
        #expect(ConstantTime.equal([], []))
    }

    @Test func aDifferenceInTheFirstOrLastOctetIsFound() {
        var first = value
        first[0] ^= 0x01
        var last = value
        last[15] ^= 0x80
        #expect(!ConstantTime.equal(value, first))
        #expect(!ConstantTime.equal(value, last))
    }

    @Test func differentLengthsAreUnequal() {
        #expect(!ConstantTime.equal(value, Array(value.prefix(15))))
        #expect(!ConstantTime.equal(Array(value.prefix(15)), value))
        #expect(!ConstantTime.equal([], value))
    }

    @Test func valuesCompareByTheirOctets() throws {
        let a = try #require(Value128(bigEndianBytes: value))
        var octets = value
        octets[15] = 0xFF
        let b = try #require(Value128(bigEndianBytes: octets))
        #expect(ConstantTime.equal(a, a))
        #expect(!ConstantTime.equal(a, b))
    }
}

// MARK: - 6. Repeated Attempts on the responder

/// Passkey brute force against a responder that displays its passkey: each attempt guesses a
/// passkey one bit off, so it fails in round 0 with Confirm Value Failed.
@Suite("SMP hardening: Repeated Attempts against a passkey brute force")
struct SMPBruteForceTests {
    static let displaying = PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections])
    static let guessing = pairingRequest(io: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections])

    enum Attempt: Equatable {
        case wrongPasskey
        case refused
    }

    /// One connection from `address`: a wrong guess, or refused at once with Repeated Attempts.
    static func attempt(from address: BluetoothAddress, clock: ManualClock, limiter: PairingAttemptLimiter) async throws -> Attempt {
        let harness = ResponderUnderTest(configuration: displaying, clock: clock, attempts: limiter, initiatorAddress: address)
        let pairing = harness.start(guessing)
        let initiator = harness.initiator
        switch try await initiator.next() {
        case .pairingFailed(let failed):
            #expect(failed.reason == .repeatedAttempts)
            await #expect(throws: PairingError.failedHere(.repeatedAttempts)) { try await pairing.value }
            return .refused
        case .pairingResponse(let response):
            initiator.response = response
        case let other:
            throw InitiatorScriptFailure(description: "unexpected \(other.code)")
        }
        let state = try await initiator.exchangePublicKeys(P256KeyPair())
        var shown = harness.agent.displayedPasskeys.makeAsyncIterator()
        let passkey = try #require(await shown.next())
        #expect(try await initiator.passkeyRound(state, passkey: passkey ^ 1, round: 0, nai: .random()) == nil)
        #expect(initiator.lastFailure == .confirmValueFailed)
        await #expect(throws: PairingError.failedHere(.confirmValueFailed)) { try await pairing.value }
        return .wrongPasskey
    }

    @Test func fromOneAddressEachWrongGuessDoublesTheWait() async throws {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(policy: .init(globalAllowance: nil), clock: clock)
        let attacker = BluetoothAddress("C0:BA:D0:00:00:01", kind: .random)!
        var log: [Attempt] = []
        for wait in [2, 4, 8, 16] {
            log.append(try await Self.attempt(from: attacker, clock: clock, limiter: limiter))
            // Straight away, and just before the wait ends: refused.
            log.append(try await Self.attempt(from: attacker, clock: clock, limiter: limiter))
            clock.advance(by: .seconds(wait) - .milliseconds(1))
            log.append(try await Self.attempt(from: attacker, clock: clock, limiter: limiter))
            clock.advance(by: .milliseconds(1))
        }
        #expect(log == Array(repeating: [Attempt.wrongPasskey, .refused, .refused], count: 4).flatMap(\.self))
    }

    /// A new address for every guess escapes the per-address wait, not the global one: past the
    /// allowance of 4 failures, every attempt from anyone waits 1 s, then 2 s, 4 s…
    @Test func fromRotatingAddressesTheGlobalLimitSlowsEveryGuess() async throws {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        var next: UInt64 = 0
        func fresh() -> BluetoothAddress {
            next += 1
            return BluetoothAddress(value: 0xC0_00_00_00_00_00 + next, kind: .random)!
        }
        for _ in 0..<4 { #expect(try await Self.attempt(from: fresh(), clock: clock, limiter: limiter) == .wrongPasskey) }
        #expect(await limiter.remainingGlobalWait == nil)
        for wait in [1, 2, 4, 8] {
            #expect(try await Self.attempt(from: fresh(), clock: clock, limiter: limiter) == .wrongPasskey)
            #expect(await limiter.remainingGlobalWait == .seconds(wait))
            #expect(try await Self.attempt(from: fresh(), clock: clock, limiter: limiter) == .refused)
            clock.advance(by: .seconds(wait))
        }
    }

    @Test func theGlobalWaitIsCappedAndForgottenAfterAQuietTime() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        var waits: [Duration] = []
        for index in 0..<12 {
            await limiter.recordFailure(of: BluetoothAddress(value: 0xC0_00_00_00_01_00 + UInt64(index), kind: .random)!)
            waits.append(await limiter.remainingGlobalWait ?? .zero)
        }
        #expect(waits == [0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 32, 32].map { .seconds($0) })
        clock.advance(by: .seconds(600))
        await limiter.recordFailure(of: BluetoothAddress(value: 0xC0_00_00_00_02_00, kind: .random)!)
        #expect(await limiter.remainingGlobalWait == nil)
    }
}

// MARK: - 7. The Security Manager Timer (§3.4)

@Suite("SMP hardening: ignored PDUs do not restart the SMP timer")
struct SMPTimerTests {
    /// Lets the engine take the PDU just sent before time moves on.
    static func settle(_ clock: ManualClock) async {
        for _ in 0..<100 { await Task.yield() }
        await clock.waitForSleepers(atLeast: 1)
    }

    // The time limit only turns a hang into a failure (on code where ignored PDUs restart the
    // timer, the pairing would wait for a clock nobody advances).
    @Test(.timeLimit(.minutes(1)))
    func theResponderTimesOutThirtySecondsAfterItsLastPDUDespiteKeypressNotifications() async throws {
        let harness = ResponderUnderTest()
        let pairing = harness.start(pairingRequest())
        try await harness.initiator.expectResponse()
        await harness.clock.waitForSleepers(atLeast: 1)
        for _ in 0..<2 {
            harness.clock.advance(by: .seconds(10))
            harness.initiator.send(raw: [0x0E, 0x01])  // Keypress Notification: skipped
            await Self.settle(harness.clock)
        }
        harness.clock.advance(by: .seconds(10))
        await #expect(throws: PairingError.timedOut) { try await pairing.value }
        #expect(harness.log.all == [.sent(.pairingResponse)])
    }

    @Test(.timeLimit(.minutes(1)))
    func theInitiatorTimesOutThirtySecondsAfterItsRequestDespiteSecurityRequests() async throws {
        let f = InitiatorUnderTest()
        let pairing = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.clock.waitForSleepers(atLeast: 1)
        for _ in 0..<2 {
            f.clock.advance(by: .seconds(10))
            await f.responder.sendBytes([0x0B, 0x01])  // Security Request: skipped
            await Self.settle(f.clock)
        }
        f.clock.advance(by: .seconds(10))
        #expect(await failure(of: pairing) == .timedOut)
        #expect(f.bearer.sent.count == 1)
    }

    /// The PDU the procedure expects does restart it: 25 s, the response, then 25 s more is fine.
    @Test(.timeLimit(.minutes(1)))
    func theExpectedPDURestartsTheTimer() async throws {
        let f = InitiatorUnderTest()
        let pairing = f.start()
        defer { f.responder.close() }
        _ = try await f.responder.expect(SMPPairingRequest.self)
        await f.clock.waitForSleepers(atLeast: 1)
        f.clock.advance(by: .seconds(25))
        try await f.responder.send(SMPPairingResponse(responseFeatures()))
        // Our public key goes out at once: the timer restarts there.
        _ = try await f.responder.expect(SMPPairingPublicKey.self)
        await Self.settle(f.clock)
        f.clock.advance(by: .seconds(25))
        let (one, another) = (P256KeyPair().publicKey, P256KeyPair().publicKey)
        try await f.responder.send(SMPPairingPublicKey(x: one.x.littleEndianBytes, y: another.y.littleEndianBytes))
        // A public key with the wrong Y for its X is off the curve: the failure shows the
        // initiator was still alive at 50 s.
        #expect(await failure(of: pairing) == .failedHere(.dhKeyCheckFailed))
    }
}
