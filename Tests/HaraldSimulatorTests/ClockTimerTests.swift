import HaraldCore
import Testing

@testable import HaraldSimulator

/// The virtual clock's timers (what simulated links and devices run on): actions in place of
/// tasks, a repeating tick re-armed in place, cancellation.
@Suite("Virtual clock timers")
struct ClockTimerTests {
    @Test func aRepeatingTickRunsAtEveryIntervalFromItsFirstDeadlineUntilItSaysStop() {
        let clock = VirtualClock()
        let ticks = Locked<[Duration]>([])
        clock.repeating(from: VirtualInstant(sinceStart: .milliseconds(5)), every: .milliseconds(20)) {
            ticks.withLock { $0.append(clock.now.sinceStart) }
            return ticks.withLock { $0.count } < 4
        }
        #expect(clock.sleeperCount == 1)
        while clock.advanceToNextDeadline() {}
        #expect(ticks.value == [.milliseconds(5), .milliseconds(25), .milliseconds(45), .milliseconds(65)])
        #expect(clock.sleeperCount == 0, "a tick that returned false is not re-armed")
    }

    @Test func aRepeatingTickKeepsItsPhaseWhenTimeJumpsPastSeveralTicks() {
        let clock = VirtualClock()
        let ticks = Locked<[Duration]>([])
        // `unowned`: this tick never stops, and the clock keeps it; holding the clock from it
        // would keep both for good.
        clock.repeating(from: VirtualInstant(sinceStart: .seconds(1)), every: .seconds(1)) { [unowned clock] in
            ticks.withLock { $0.append(clock.now.sinceStart) }
            return true
        }
        clock.advance(to: VirtualInstant(sinceStart: .milliseconds(3500)))
        // One tick per whole second passed; the next stays on the whole second.
        #expect(ticks.value.count == 3)
        #expect(clock.nextDeadline == VirtualInstant(sinceStart: .seconds(4)))
    }

    @Test func aCancelledTimerNeitherRunsNorCountsAsASleeper() {
        let clock = VirtualClock()
        let ran = Locked(false)
        let timer = clock.schedule(at: VirtualInstant(sinceStart: .seconds(1))) { _ in ran.withLock { $0 = true } }
        let other = clock.schedule(at: VirtualInstant(sinceStart: .seconds(2))) { _ in }
        #expect(clock.sleeperCount == 2)
        clock.cancelWake(try! #require(timer))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(3))
        #expect(ran.value == false)
        #expect(other != nil)
    }

    @Test func aTimerActionIsHandedTheTimeItRunsAt() {
        let clock = VirtualClock()
        let seen = Locked<VirtualInstant?>(nil)
        _ = clock.schedule(at: VirtualInstant(sinceStart: .seconds(2))) { now in seen.withLock { $0 = now } }
        clock.advance(to: VirtualInstant(sinceStart: .seconds(5)))
        #expect(seen.value == VirtualInstant(sinceStart: .seconds(5)), "advanced by hand past the deadline: the clock's time then")
    }

    @Test func aTimerWhoseTimeHasComeIsNotScheduled() {
        let clock = VirtualClock()
        clock.advance(by: .seconds(1))
        #expect(clock.schedule(at: VirtualInstant(sinceStart: .seconds(1))) { _ in } == nil)
        #expect(clock.sleeperCount == 0)
    }

    @Test func endingAClockDrivenByHandCancelsItsSleepersAndRunsItsEndActions() async throws {
        let clock = VirtualClock()
        let ended = Locked(false)
        _ = clock.atEnd { ended.withLock { $0 = true } }
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.end()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(ended.value)
        #expect(clock.sleeperCount == 0)
    }
}
