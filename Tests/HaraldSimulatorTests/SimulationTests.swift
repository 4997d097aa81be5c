import HaraldSimulator
import Testing

/// Records events with the virtual time they happened at.
private actor EventLog {
    var entries: [String] = []
    func record(_ entry: String) { entries.append(entry) }
}

@Suite("Simulation runs async code in virtual time")
struct SimulationTests {
    @Test func thirtySecondTimeoutPassesInVirtualTime() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let elapsed = try await simulation.run {
            let start = clock.now
            try await clock.sleep(for: .seconds(30))
            return start.duration(to: clock.now)
        }
        #expect(elapsed == .seconds(30))
        #expect(simulation.clock.now == VirtualInstant(sinceStart: .seconds(30)))
    }

    @Test func childTasksAndActorsInterleaveTheSameWayEveryRun() async throws {
        func scenario() async throws -> [String] {
            let simulation = Simulation()
            let clock = simulation.clock
            return try await simulation.run {
                let log = EventLog()
                await withTaskGroup(of: Void.self) { group in
                    for name in ["a", "b", "c"] {
                        group.addTask {
                            for step in 0..<3 {
                                try? await clock.sleep(for: .milliseconds(name == "b" ? 7 : 5))
                                await log.record("\(name)\(step)@\(clock.now.sinceStart)")
                            }
                        }
                    }
                }
                return await log.entries
            }
        }
        let first = try await scenario()
        #expect(first.count == 9)
        #expect(try await scenario() == first)
        #expect(first.first == "a0@0.005 seconds")
    }

    @Test func sleepersWithEqualDeadlinesWakeInTheOrderTheySlept() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let order = try await simulation.run {
            let log = EventLog()
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        // Stagger registration so the sleep order is known.
                        try? await clock.sleep(for: .milliseconds(index))
                        try? await clock.sleep(until: VirtualInstant(sinceStart: .seconds(1)))
                        await log.record("\(index)")
                    }
                }
            }
            return await log.entries
        }
        #expect(order == ["0", "1", "2", "3", "4"])
    }

    @Test func waitingForSomethingThatNeverHappensIsReportedAsStalled() async {
        let simulation = Simulation()
        simulation.stallGrace = .milliseconds(50)
        await #expect(throws: SimulationError.self) {
            try await simulation.run {
                let (never, _) = AsyncStream<Int>.makeStream()
                for await _ in never {}
                return 0
            }
        }
    }

    @Test func aBodyThatNeverFinishesHitsTheVirtualTimeLimit() async {
        let simulation = Simulation()
        let clock = simulation.clock
        await #expect(throws: SimulationError.timeLimitExceeded(limit: .seconds(60))) {
            try await simulation.run(timeLimit: .seconds(60)) {
                while !Task.isCancelled { try? await clock.sleep(for: .seconds(1)) }
                return 0
            }
        }
    }

    @Test func cancellingASleeperWakesItWithCancellationError() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let outcome = try await simulation.run {
            await withTaskGroup(of: String.self) { group in
                group.addTask {
                    do {
                        try await clock.sleep(for: .seconds(3600))
                        return "woke normally"
                    } catch is CancellationError {
                        return "cancelled at \(clock.now.sinceStart)"
                    } catch {
                        return "other error"
                    }
                }
                group.addTask {
                    try? await clock.sleep(for: .seconds(2))
                    return "canceller"
                }
                let first = await group.next()
                group.cancelAll()
                let second = await group.next()
                return [first, second].compactMap { $0 }
            }
        }
        #expect(outcome == ["canceller", "cancelled at 2.0 seconds"])
    }

    @Test func clockAdvancedByHandWakesDueSleepersOnly() async throws {
        let clock = VirtualClock()
        let woke = EventLog()
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10))
            await woke.record("woke")
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(await woke.entries == ["woke"])
    }
}

@Suite("An awaited simulation run")
struct AwaitedSimulationRunTests {
    @Test func cancellingTheCallerCancelsTheBody() async {
        let simulation = Simulation()
        let clock = simulation.clock
        let started = AsyncStream<Void>.makeStream()
        let run = Task {
            try await simulation.run {
                started.continuation.yield()
                // Sleeps in virtual time until cancelled; only the 24-hour limit would end it otherwise.
                while true { try await clock.sleep(for: .seconds(1)) }
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        run.cancel()
        await #expect(throws: CancellationError.self) { try await run.value }
    }

    @Test func aCallerCancelledBeforeTheRunStartsGetsACancelledBody() async {
        let simulation = Simulation()
        let clock = simulation.clock
        let ran = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await simulation.run {
                try await clock.sleep(for: .seconds(1))
                return true
            }
        }.result
        #expect(throws: CancellationError.self) { try ran.get() }
    }

    @Test func theBlockingAndTheAwaitedFormsTakeTheSameSteps() async throws {
        func steps(_ simulation: Simulation) -> @Sendable () async throws -> [Duration] {
            let clock = simulation.clock
            return {
                var seen: [Duration] = []
                for delay in [3, 1, 2] {
                    try await clock.sleep(for: .milliseconds(delay))
                    seen.append(clock.now.sinceStart)
                }
                return seen
            }
        }
        let blocking = Simulation()
        let awaited = Simulation()
        let first = try await Task.detached { try blocking.run(steps(blocking)) }.value
        #expect(try await awaited.run(steps(awaited)) == first)
        #expect(first == [.milliseconds(3), .milliseconds(4), .milliseconds(6)])
    }
}
