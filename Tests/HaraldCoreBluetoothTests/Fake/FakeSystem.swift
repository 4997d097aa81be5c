import Foundation

/// A call CoreBluetooth would not take as made: it logs "API MISUSE" and ignores it (or, off its
/// queue, races with its own work).
enum FakeMisuse: Hashable, Sendable, CustomStringConvertible {
    /// Made off the queue the central was created with.
    case offQueue(String)
    /// A central command given while the central is not powered on.
    case notPoweredOn(String)
    /// A peripheral request while the peripheral is not connected.
    case notConnected(String)
    /// Something CoreBluetooth refuses outright (it raises an exception or logs an error).
    case rule(String)

    var description: String {
        switch self {
        case let .offQueue(call): "\(call) called off CoreBluetooth's queue"
        case let .notPoweredOn(call): "\(call) called while not powered on"
        case let .notConnected(call): "\(call) called on a peripheral that is not connected"
        case let .rule(rule): rule
        }
    }
}

/// What every fake object shares, as CoreBluetooth's objects share one process: the lock guarding
/// their state, the queue CoreBluetooth calls the delegate on (and wants to be called on), and the
/// record of calls it would have rejected.
final class FakeSystem: @unchecked Sendable {
    // @unchecked Sendable: `log` and `scheduled` are only touched with `lock` held; `queue` and
    // `key` are immutable and Sendable.
    let lock = NSLock()
    let queue = DispatchQueue(label: "FakeCoreBluetooth")
    private let key = DispatchSpecificKey<Bool>()
    private var log: [FakeMisuse] = []
    /// Blocks the fake dispatched onto the queue and that have not run yet.
    private var scheduled = 0

    init() { queue.setSpecific(key: key, value: true) }

    var isOnQueue: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// Every misuse so far, in order.
    var misuse: [FakeMisuse] { lock.withLock { log } }

    /// Records `misuse` (call with the lock released).
    func record(_ misuse: FakeMisuse) { lock.withLock { log.append(misuse) } }

    /// Records a misuse when the caller is not on the queue (call with the lock released).
    func checkQueue(_ call: String) {
        if !isOnQueue { record(.offQueue(call)) }
    }

    /// Runs `body` on the queue, as CoreBluetooth runs its delegate calls: in place when already
    /// there, otherwise waiting for the queue.
    func onQueue<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs `body` on the queue later, as CoreBluetooth reports most things.
    func later(_ body: @escaping @Sendable () -> Void) {
        lock.withLock { scheduled += 1 }
        queue.async {
            body()
            self.lock.withLock { self.scheduled -= 1 }
        }
    }

    /// Returns once the queue has run everything dispatched onto it so far, including what that
    /// work dispatched in turn through `later`.
    func settle() async {
        repeat {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in queue.async { continuation.resume() } }
        } while lock.withLock { scheduled } > 0
    }
}
