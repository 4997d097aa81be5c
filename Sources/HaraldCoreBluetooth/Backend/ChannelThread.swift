import Foundation

/// A thread of its own, running a run loop, where one L2CAP channel's streams are scheduled and
/// used: CoreBluetooth's channel streams are run-loop based, report their events on the run loop
/// they are scheduled in, and are not safe to use from several threads.
///
/// One per channel rather than one per backend: a channel's thread lives exactly as long as its
/// streams (it ends when they are closed), channels never wait behind each other's work, and a
/// backend with no channel open has no thread. CoreBluetooth allows few channels per link, so
/// the threads stay few.
///
/// Work handed to ``run(_:)`` runs on the thread in the order it was given, woken by a timer
/// added to the thread's run loop (adding a timer is how another thread may wake a run loop
/// without Core Foundation, which Linux does not expose).
final class ChannelThread: @unchecked Sendable {
    // @unchecked Sendable: `runLoop`, `waiting`, `wakePending` and `stopping` are guarded by
    // `lock`; `keepAlive` is touched only on the thread.
    private let lock = NSLock()
    private var runLoop: RunLoop?
    private var waiting: [@Sendable () -> Void] = []
    private var wakePending = false
    private var stopping = false
    private var keepAlive: Timer?

    /// Starts the thread, named `name` (for debuggers).
    init(name: String) {
        let thread = Thread { [self] in main() }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the thread after the work given before it. False (and `work` is dropped)
    /// once the thread is stopping.
    @discardableResult
    func run(_ work: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, wake) = lock.withLock { () -> (Bool, RunLoop?) in
            guard !stopping else { return (false, nil) }
            waiting.append(work)
            guard let runLoop, !wakePending else { return (true, nil) }
            wakePending = true
            return (true, runLoop)
        }
        if let wake { wake.add(Timer(fire: Date(), interval: 0, repeats: false) { [self] _ in drain() }, forMode: .default) }
        return accepted
    }

    /// Runs `work` on the thread and returns once it ran (at once when the thread is stopping).
    func runAndWait(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if !run({
                work()
                continuation.resume()
            }) {
                continuation.resume()
            }
        }
    }

    /// On the thread: no work is taken from now on, and the thread ends once its run loop has
    /// nothing left (call after the streams are closed and unscheduled).
    func stopOnThread() {
        lock.withLock { stopping = true }
        keepAlive?.invalidate()
        keepAlive = nil
    }

    private func main() {
        let loop = RunLoop.current
        // A run loop with nothing scheduled returns at once: this timer keeps it running until
        // `stopOnThread`.
        let timer = Timer(timeInterval: 365 * 86_400, repeats: true) { _ in }
        keepAlive = timer
        loop.add(timer, forMode: .default)
        let early = lock.withLock {
            runLoop = loop
            return !waiting.isEmpty
        }
        if early { drain() }
        while !lock.withLock({ stopping }) {
            _ = loop.run(mode: .default, before: .distantFuture)
        }
        drain()
    }

    /// On the thread: runs the work waiting, in order, until none is left.
    private func drain() {
        while true {
            let batch: [@Sendable () -> Void] = lock.withLock {
                defer { waiting = [] }
                if waiting.isEmpty { wakePending = false }
                return waiting
            }
            if batch.isEmpty { return }
            for work in batch { work() }
        }
    }
}
