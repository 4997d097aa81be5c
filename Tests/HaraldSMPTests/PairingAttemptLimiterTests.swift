import HaraldCore
import HaraldSMP
import HaraldTestSupport
import Testing

/// Repeated Attempts protection (Core spec Vol 3 Part H §2.3.6) on a manual clock.
@Suite("Pairing attempt limiter")
struct PairingAttemptLimiterTests {
    static let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
    static let identity = BluetoothAddress("00:1B:DC:00:00:09", kind: .public)!

    @Test func aPeerThatNeverFailedMayPairAtOnce() async {
        let limiter = PairingAttemptLimiter(clock: ManualClock())
        #expect(await limiter.remainingWait(for: Self.peer) == nil)
    }

    @Test func theFirstFailureMakesTheNextAttemptWaitTwoSeconds() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        #expect(await limiter.recordFailure(of: Self.peer) == .seconds(2))
        #expect(await limiter.remainingWait(for: Self.peer) == .seconds(2))
        clock.advance(by: .milliseconds(1500))
        #expect(await limiter.remainingWait(for: Self.peer) == .milliseconds(500))
        clock.advance(by: .milliseconds(500))
        #expect(await limiter.remainingWait(for: Self.peer) == nil)
    }

    @Test func theWaitDoublesWithEachFailureInARowUpToTheLongest() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        var waits: [Duration] = []
        for _ in 0..<8 {
            let wait = await limiter.recordFailure(of: Self.peer)
            waits.append(wait)
            clock.advance(by: wait)
        }
        #expect(waits == [2, 4, 8, 16, 32, 64, 64, 64].map { .seconds($0) })
    }

    @Test func aSuccessStartsThePeerAgainFromNoFailures() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        clock.advance(by: await limiter.recordFailure(of: Self.peer))
        clock.advance(by: await limiter.recordFailure(of: Self.peer))
        await limiter.recordSuccess(of: Self.peer)
        #expect(await limiter.remainingWait(for: Self.peer) == nil)
        #expect(await limiter.recordFailure(of: Self.peer) == .seconds(2))
    }

    @Test func aWaitRecordedUnderTheIdentityHoldsForTheAddressAndTheOtherWayRound() async {
        let limiter = PairingAttemptLimiter(clock: ManualClock())
        await limiter.recordFailure(of: Self.peer, Self.identity)
        #expect(await limiter.remainingWait(for: Self.identity) == .seconds(2))
        let newAddress = BluetoothAddress("4A:00:00:00:00:02", kind: .random)!
        #expect(await limiter.remainingWait(for: newAddress, Self.identity) == .seconds(2))
    }

    @Test func failuresUnderEitherAddressCountTowardsOneRun() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(clock: clock)
        clock.advance(by: await limiter.recordFailure(of: Self.peer, Self.identity))
        let newAddress = BluetoothAddress("4A:00:00:00:00:02", kind: .random)!
        #expect(await limiter.recordFailure(of: newAddress, Self.identity) == .seconds(4))
    }

    @Test func aPeerWithoutFailuresForTheForgetTimeStartsAgainFromTheFirstWait() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(policy: .init(forgetAfter: .seconds(600)), clock: clock)
        clock.advance(by: await limiter.recordFailure(of: Self.peer))
        clock.advance(by: await limiter.recordFailure(of: Self.peer))
        clock.advance(by: .seconds(600))
        #expect(await limiter.recordFailure(of: Self.peer) == .seconds(2))
    }

    @Test func theTableHoldsAtMostItsCapacityDroppingTheWaitThatEndsSoonest() async {
        let clock = ManualClock()
        let limiter = PairingAttemptLimiter(policy: .init(capacity: 4), clock: clock)
        let stubborn = BluetoothAddress("C0:00:00:00:00:FF", kind: .random)!
        for _ in 0..<5 { await limiter.recordFailure(of: stubborn) }  // waits 32 s
        for index in 0..<10 {
            await limiter.recordFailure(of: BluetoothAddress(value: 0xC0_00_00_00_10_00 + UInt64(index), kind: .random)!)
        }
        #expect(await limiter.rememberedCount == 4)
        #expect(await limiter.remainingWait(for: stubborn) == .seconds(32))
    }

    @Test func aRefusalForRepeatedAttemptsAndALostLinkAreNotFailedAttempts() {
        #expect(!PairingError.failedHere(.repeatedAttempts).countsAsFailedAttempt)
        #expect(!PairingError.failedByPeer(.repeatedAttempts).countsAsFailedAttempt)
        #expect(!PairingError.linkLost("gone").countsAsFailedAttempt)
        #expect(PairingError.failedHere(.confirmValueFailed).countsAsFailedAttempt)
        #expect(PairingError.failedByPeer(.dhKeyCheckFailed).countsAsFailedAttempt)
        #expect(PairingError.timedOut.countsAsFailedAttempt)
    }
}
