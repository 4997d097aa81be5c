import Foundation

// Planted for scripts/census --self-test. Nothing here is compiled.
// A comment mentioning Task { } and actor Ghost and Locked(0) and NSLock() counts for nothing.
/* A block comment: public actor Phantom { nonisolated let x = 1 }
   /* nested: Task.detached { } */ still inside: starter.start { } */

/// Doc comment: `Task { await work() }` and `public func nothing()`.
public actor Counter {
    public nonisolated let name: String
    nonisolated(unsafe) var scratch = 0
    private var value = 0
    private let box = Locked(0)                       // Locked #1
    private let table = Locked<[Int: (String, Int)]>([:])   // Locked #2 (nested generics, tuple)

    public init(name: String) { self.name = name }

    public nonisolated func describe() -> String {
        "Counter \(name): Task { never } \("actor Fake { }")"
    }

    func bump(starter: TaskStarter) {
        starter.start { await self.tick() }           // dropped #1
        let kept = starter.start { await self.tick() }  // assigned
        _ = kept
        func inner() { let x = 1; _ = x }             // a local function, not a member
    }

    func tick() { value += 1 }
}

extension Counter {
    nonisolated var label: String { name }            // nonisolated #4 (in an extension)
    func twice() async {
        let sleeper = Task {                          // raw task #1, a sleeping task
            try? await Task.sleep(for: .seconds(1))   // Task.sleep is not a raw task
            await Task.yield()
            if Task.isCancelled { return }
        }
        _ = sleeper
    }
}

let multi = """
    Task {
    actor Inside { }
    public var hidden = Locked(1)
    """
let raw = #"a \"quoted\" Task { } and "plain" quotes"#
