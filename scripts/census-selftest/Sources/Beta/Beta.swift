import Foundation

package struct Settings {
    package var retries = 3
    public var name = "open actor Beta { }"
}

open class Base {
    open func open() {}                               // two `open` modifiers so far; the method's name is none
    public init() {}
}

final class Owner: Sendable {
    private let condition = NSCondition()             // hand-made lock #2
    private let state = Locked(Owner.State())         // Locked #3
    struct State {}

    func run(starter: TaskStarter) {
        Task.detached { await Self.work() }           // raw task #2
        Task(priority: .low) {                        // raw task #3, a sleeping task
            try? await ContinuousClock().sleep(for: .seconds(2))
        }
        self.tasks.starter.start { }                  // dropped #3
    }

    static func work() async {
        _ = try? await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Task.sleep(for: .seconds(3)) }   // a sleeping child task
            group.addTask { }
            try await group.next()
        }
    }
}

actor Quiet {
    func noop() {}
    func visit(_ actors: [Quiet]) { for actor in actors { _ = actor } }   // `actor` as a name: no declaration
}

actor Guest {                                         // runs on another actor's executor
    let host: Quiet
    init(host: Quiet) { self.host = host }
    nonisolated var unownedExecutor: UnownedSerialExecutor { host.unownedExecutor }
    func borrow() { let unownedExecutor = 1; _ = unownedExecutor }   // a local of that name: no forward
}

distributed actor Remote {}                           // counted apart from the actors

final class Locked<Value>: @unchecked Sendable {
    let lock = NSLock()                               // the lock type's own lock: not hand-made
    var storage: Value
    init(_ value: Value) { storage = value }
}

struct TaskStarter {
    func start<T>(_ operation: @escaping @Sendable () async -> T) -> Task<T, Never> {
        Task(operation: operation)                    // raw task #4, inside TaskStarter
    }
}
