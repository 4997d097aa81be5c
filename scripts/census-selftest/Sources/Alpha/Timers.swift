import HaraldCore

struct ATTTimer: Sendable {
    // The helper's own sleeping task is the mechanism; its calls are the uses.
    func schedule(at deadline: Duration, startedBy starter: TaskStarter, _ action: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        starter.start {                               // implicit return: kept
            do { try await Task.sleep(for: deadline) } catch { return }
            await action()
        }
    }
}

final class Client: @unchecked Sendable {
    let timer = ATTTimer()
    let lock = NSLock()                               // hand-made lock #1
    var pending: Task<Void, Never>?

    func request(starter: TaskStarter) async throws -> Int? {
        pending = timer.schedule(at: .seconds(30), startedBy: starter) { }   // ATTTimer use
        let deadline = CallDeadline(timeout: .seconds(5), clock: ContinuousClock())  // CallDeadline use
        _ = deadline
        let value = await starter.start { 42 }.value  // kept: the handle is used
        return try await withDeadline(.seconds(1), clock: ContinuousClock()) { value }  // withDeadline use
    }

    func handle(_ code: Int, starter: TaskStarter) {
        switch code {
        case 1:
            starter.start { print("one") }            // dropped #2 (a statement after a case label)
        default:
            record(starter.start { print("other") })  // passed as an argument: kept
        }
    }

    func record(_ task: Task<Void, Never>) {}
}

actor Engine {
    func addDeadline(after delay: Duration, _ action: Int) -> Int { action }  // the declaration: not a use

    func request() {
        _ = addDeadline(after: .seconds(30), 1)        // DeadlineSchedule use
    }
}

/// A schedule kept inside a locked state: `state.deadlines.add(at:)` is a use; the helper's own
/// `deadlines.add(` (no owner before it) is the implementation, not a use.
final class LockedEngine {
    struct State { var deadlines = Schedule() }
    struct Schedule { mutating func add(at deadline: Int, _ action: Int) -> Int { action } }
    var state = State()
    var deadlines = Schedule()

    func request() {
        _ = state.deadlines.add(at: 5, 2)              // DeadlineSchedule use
        _ = deadlines.add(at: 5, 3)                    // the helper's own call: not a use
    }
}
