import HaraldCore
import Testing

/// The one first-come-first-served turn lock of the package.
@Suite("Turns", .timeLimit(.minutes(1)))
struct TurnsTests {
    /// Records who held the turn, in order, and whether two ever held it at once.
    actor Record {
        var order: [Int] = []
        var holders = 0
        var overlapped = false
        func enter(_ id: Int) {
            holders += 1
            if holders > 1 { overlapped = true }
            order.append(id)
        }
        func leave() { holders -= 1 }
    }

    @Test func theFirstCallerGetsTheTurnAtOnce() async {
        let turns = Turns()
        #expect(await turns.take())
        turns.end()
        #expect(await turns.take(), "an ended turn is free again")
        turns.end()
    }

    @Test func callersNeverOverlapAndAreServedInTheOrderTheyAsked() async {
        let turns = Turns()
        let record = Record()
        #expect(await turns.take())  // held, so the callers below queue up in order
        var tasks: [Task<Void, Never>] = []
        for id in 0..<5 {
            tasks.append(
                Task {
                    guard await turns.take() else { return }
                    await record.enter(id)
                    await Task.yield()
                    await record.leave()
                    turns.end()
                })
            // Each caller is in line before the next one starts.
            while turns.waitingCount < id + 1 { await Task.yield() }
        }
        turns.end()
        for task in tasks { await task.value }
        #expect(await record.order == [0, 1, 2, 3, 4])
        #expect(await !record.overlapped)
    }

    @Test func aWiderLineRunsThatManyTurnsAtOnceAndQueuesTheRest() async {
        let turns = Turns(width: 2)
        #expect(await turns.take())
        #expect(await turns.take(), "a second turn runs beside the first")
        let third = Task { await turns.take() }
        while turns.waitingCount < 1 { await Task.yield() }
        turns.end()
        #expect(await third.value, "the third gets the turn the first ended")
        turns.end()
        turns.end()
        #expect(await turns.take(), "every turn ended: the line is free")
        #expect(await turns.take())
        turns.end()
        turns.end()
    }

    @Test func aCancelledCallerLeavesTheLineAndTheNextOneGetsTheTurn() async {
        let turns = Turns()
        #expect(await turns.take())
        let cancelled = Task { await turns.take() }
        while turns.waitingCount < 1 { await Task.yield() }
        let next = Task { await turns.take() }
        while turns.waitingCount < 2 { await Task.yield() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        turns.end()
        #expect(await next.value == true)
        turns.end()
    }

    @Test func aCleanUpWaitsForItsTurnEvenWhenItsTaskIsCancelled() async {
        let turns = Turns()
        #expect(await turns.take())
        let cleanUp = Task {
            await turns.takeEvenIfCancelled()
            let cancelled = Task.isCancelled
            turns.end()
            return cancelled
        }
        while turns.waitingCount < 1 { await Task.yield() }
        cleanUp.cancel()
        for _ in 0..<100 { await Task.yield() }
        #expect(turns.waitingCount == 1, "still in line after its task was cancelled")
        turns.end()
        #expect(await cleanUp.value == true, "it ran its turn, cancelled")
        #expect(await turns.take(), "and ended it")
        turns.end()
    }
}
