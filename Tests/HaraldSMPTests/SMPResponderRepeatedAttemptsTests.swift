import HaraldCore
import HaraldSMP
import HaraldTestSupport
import Testing

/// The responder's Repeated Attempts protection (Core spec Vol 3 Part H §2.3.6): one limiter
/// shared by the responders of successive connections, on one manual clock.
@Suite("SMPResponder: repeated attempts")
struct SMPResponderRepeatedAttemptsTests {
    static let request = SMPPairingRequest(
        PairingFeatures(
            ioCapability: .noInputNoOutput, authReq: [.bonding, .secureConnections], maxEncryptionKeySize: 16,
            initiatorKeyDistribution: [], responderKeyDistribution: []))

    /// One connection's pairing that the central fails (it sends Pairing Failed after the response).
    static func failedPairing(clock: ManualClock, attempts: PairingAttemptLimiter) async throws {
        let harness = ResponderUnderTest(clock: clock, attempts: attempts)
        let pairing = harness.start(request)
        try await harness.initiator.expectResponse()
        try harness.initiator.send(SMPPairingFailed(reason: .confirmValueFailed))
        _ = await pairing.result
    }

    @Test func aRequestWithinTheWaitAfterAFailureIsAnsweredWithRepeatedAttempts() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        try await Self.failedPairing(clock: clock, attempts: attempts)
        clock.advance(by: .seconds(1))

        let next = ResponderUnderTest(clock: clock, attempts: attempts)
        let pairing = next.start(Self.request)
        #expect(try await next.initiator.expectFailure() == .repeatedAttempts)
        await #expect(throws: PairingError.failedHere(.repeatedAttempts)) { try await pairing.value }
        #expect(next.log.all == [.sent(.pairingFailed)])
    }

    @Test func aRequestAfterTheWaitIsServed() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        try await Self.failedPairing(clock: clock, attempts: attempts)
        clock.advance(by: .seconds(2))

        let next = ResponderUnderTest(clock: clock, attempts: attempts)
        let pairing = next.start(Self.request)
        try await next.initiator.expectResponse()
        next.initiator.closeLink()
        _ = await pairing.result
    }

    @Test func eachFailureInARowDoublesTheWait() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        try await Self.failedPairing(clock: clock, attempts: attempts)
        clock.advance(by: .seconds(2))
        try await Self.failedPairing(clock: clock, attempts: attempts)
        #expect(await attempts.remainingWait(for: ResponderUnderTest.initiatorAddress) == .seconds(4))
    }

    @Test func aRefusedRequestDoesNotLengthenTheWait() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        try await Self.failedPairing(clock: clock, attempts: attempts)
        let refused = ResponderUnderTest(clock: clock, attempts: attempts)
        _ = await refused.start(Self.request).result
        #expect(await attempts.remainingWait(for: ResponderUnderTest.initiatorAddress) == .seconds(2))
    }

    @Test func aTimedOutPairingCountsAsAFailure() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        let harness = ResponderUnderTest(clock: clock, attempts: attempts)
        let pairing = harness.start(Self.request)
        try await harness.initiator.expectResponse()
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        await #expect(throws: PairingError.timedOut) { try await pairing.value }
        #expect(await attempts.remainingWait(for: ResponderUnderTest.initiatorAddress) == .seconds(2))
    }

    @Test func aCompletedPairingClearsTheFailures() async throws {
        let clock = ManualClock()
        let attempts = PairingAttemptLimiter(clock: clock)
        await attempts.recordFailure(of: ResponderUnderTest.initiatorAddress)
        clock.advance(by: .seconds(2))
        await attempts.recordFailure(of: ResponderUnderTest.initiatorAddress)
        clock.advance(by: .seconds(4))
        // Legacy Just Works without key distribution: the quickest complete pairing to script.
        let legacy = SMPPairingRequest(
            PairingFeatures(
                ioCapability: .noInputNoOutput, authReq: [.bonding], maxEncryptionKeySize: 16, initiatorKeyDistribution: [],
                responderKeyDistribution: []))
        let harness = ResponderUnderTest(clock: clock, attempts: attempts)
        let pairing = harness.start(legacy)
        try await harness.initiator.expectResponse()
        let stk = try await harness.initiator.legacyExchange(tk: .zero, mrand: Value128(littleEndianBytes: [UInt8](repeating: 7, count: 16))!)
        #expect(stk != nil)
        _ = try await pairing.value
        #expect(await attempts.rememberedCount == 0)
    }
}
