import HaraldCore
import HaraldTestSupport
import Testing

@testable import HaraldSMP

/// The Security Manager Timer's waits are deadlines on the inbox's one schedule (§3.4).
@Suite("SMP: the inbox's waits are deadlines on one schedule")
struct SMPInboxTimerTests {
    @Test func waitsForManyPDUsStartNoTimerTaskEach() async {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let (incoming, peer) = AsyncStream<[UInt8]>.makeStream()
        await inbox.start(incoming)
        let rounds = 20
        for round in 0..<rounds {
            let wait = Task { await inbox.next(within: .seconds(30)) }
            // The wait is registered (its deadline added) before the PDU arrives.
            while await inbox.deadlines.count == 0 { await Task.yield() }
            peer.yield([0x05, UInt8(round)])
            guard case .pdu(let bytes) = await wait.value else {
                Issue.record("round \(round) took no PDU")
                return
            }
            #expect(bytes == [0x05, UInt8(round)])
        }
        // The pump and one sleeper (its deadline's wait was answered, it sleeps on for the next).
        #expect(inbox.starter.count <= 2, "started \(inbox.starter.count) tasks for \(rounds) waits")
        #expect(await inbox.deadlines.count == 0)
        peer.finish()
    }

    @Test func aWaitForAPDUEndsTimedOutWhenTheTimerRunsOut() async {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let (incoming, peer) = AsyncStream<[UInt8]>.makeStream()
        await inbox.start(incoming)
        let wait = Task { await inbox.next(within: .seconds(30)) }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(29))
        for _ in 0..<100 { await Task.yield() }
        #expect(await inbox.deadlines.count == 1, "still waiting one second before the end")
        clock.advance(by: .seconds(1))
        guard case .timedOut = await wait.value else {
            Issue.record("the wait did not time out")
            return
        }
        peer.finish()
    }

    @Test func aBoundedOperationThatIgnoresCancellationEndsAtItsDeadline() async throws {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let person = NeverAnsweringPerson()
        let answer = Task { try await inbox.run(within: .seconds(30)) { await person.answer() } }
        await clock.waitForSleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        #expect(try await answer.value == nil)
        person.finallyAnswer()
    }

    @Test func aBoundedOperationThatEndsFirstLeavesNoDeadlineBehind() async throws {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let value = try await inbox.run(within: .seconds(30)) { 42 }
        #expect(value == 42)
        #expect(await inbox.deadlines.count == 0)
    }

    @Test func cancellingTheCallerEndsABoundedOperationAtOnce() async {
        let clock = ManualClock()
        let inbox = SMPInbox(clock: clock)
        let person = NeverAnsweringPerson()
        let answer = Task { try await inbox.run(within: .seconds(30)) { await person.answer() } }
        await person.waitUntilAsked()
        answer.cancel()
        await #expect(throws: CancellationError.self) { try await answer.value }
        person.finallyAnswer()
    }
}

/// An operation that ignores cancellation: it ends only when the test lets it.
private final class NeverAnsweringPerson: Sendable {
    private let state = Locked((asked: false, answer: CheckedContinuation<Int, Never>?.none, answered: false))

    func answer() async -> Int {
        await withCheckedContinuation { continuation in
            let answeredAlready = state.withLock { state in
                state.asked = true
                if !state.answered { state.answer = continuation }
                return state.answered
            }
            if answeredAlready { continuation.resume(returning: 0) }
        }
    }

    func waitUntilAsked() async {
        while !state.withLock({ $0.asked }) { await Task.yield() }
    }

    /// Ends the operation (so no continuation is left behind when the test ends).
    func finallyAnswer() {
        let continuation = state.withLock { state in
            state.answered = true
            defer { state.answer = nil }
            return state.answer
        }
        continuation?.resume(returning: 0)
    }
}
