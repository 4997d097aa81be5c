import Dispatch
import HaraldCore

/// A serial domain whose executor is a dispatch queue of its own and can tell whether the code
/// calling ``isCurrent`` runs on it: what tests give an engine to check that the engine runs on
/// the domain it was handed, and not on an executor of its own.
public actor ProbedDomain {
    private let executor: ProbeExecutor

    public init() { executor = ProbeExecutor() }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Whether the caller runs on this domain's executor now.
    public nonisolated var isCurrent: Bool { DispatchQueue.getSpecific(key: executor.key) == executor.marker }

    /// Jobs the executor has run so far.
    public nonisolated var jobsRun: Int { executor.jobsRun.value }
}

/// The queue behind a ``ProbedDomain``.
final class ProbeExecutor: SerialExecutor {
    let queue = DispatchQueue(label: "harald.test.probed-domain")
    let key = DispatchSpecificKey<UInt64>()
    /// A value only this executor's queue carries under `key`.
    let marker = UInt64.random(in: 1...UInt64.max)
    let jobsRun = Locked(0)

    init() { queue.setSpecific(key: key, value: marker) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            self.jobsRun.withLock { $0 += 1 }
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
