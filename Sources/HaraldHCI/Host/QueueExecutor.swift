import Dispatch

/// A serial executor over a dispatch queue of its own: where a host runs when its transport has
/// no thread to offer (in-process transports, test doubles). Jobs run in the order they were
/// enqueued, one at a time, on whichever thread the queue uses.
final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // The block holds the executor until the job has run.
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
