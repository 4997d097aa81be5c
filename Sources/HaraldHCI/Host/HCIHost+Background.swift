import HaraldCodec
import HaraldCore
import Logging

/// The ``HCIHost/closeEvents()`` consumers waiting to hear that the host stopped.
struct CloseWatchers {
    private var byID: [UInt64: AsyncStream<HCIError>.Continuation] = [:]
    private var nextID: UInt64 = 0

    var count: Int { byID.count }

    mutating func add(_ continuation: AsyncStream<HCIError>.Continuation) -> UInt64 {
        nextID += 1
        byID[nextID] = continuation
        return nextID
    }

    mutating func remove(_ id: UInt64) { byID[id] = nil }

    /// Takes every watcher out of the table.
    mutating func removeAll() -> [AsyncStream<HCIError>.Continuation] {
        defer { byID = [:] }
        return Array(byID.values)
    }
}

// Work the host does beside its callers. Every task is registered in `tasks` (so `close()`
// cancels it and waits for it), and every failure goes through `backgroundFailed`: a broken
// transport closes the host, which ends each connection; anything else is logged.
extension HCIHost {
    /// Starts `work` on this actor as a registered background task. Callable from synchronous
    /// code outside the actor (termination and cancellation handlers). Does nothing once the
    /// host has stopped.
    nonisolated func startBackground(_ work: @escaping @Sendable (isolated HCIHost) async -> Void) {
        tasks.start { await work(self) }
    }

    /// Runs `work`, which nobody awaits the outcome of, and reports its failure
    /// (``backgroundFailed(_:activity:handle:)``) instead of throwing it.
    func bestEffort(
        _ activity: String, handle: UInt16? = nil, _ work: (isolated HCIHost) async throws(HCIError) -> Void
    ) async {
        do {
            try await work(self)
        } catch {
            backgroundFailed(error, activity: activity, handle: handle)
        }
    }

    /// What a failure of background work means: a transport error closes the host (a write that
    /// failed may have left half a packet on the wire, so nothing later could be trusted, and
    /// every connection ends with Hardware Failure); the host closing or the link going away
    /// needs no report; a controller that refuses or ignores a command is logged.
    func backgroundFailed(_ error: HCIError, activity: String, handle: UInt16?) {
        var metadata: Logger.Metadata = ["error": "\(error)"]
        if let handle { metadata["connection"] = "0x\(Hex.word(handle))" }
        switch error {
        case .transport where closedError != nil:
            logger.debug("\(activity) abandoned: the host has stopped", metadata: metadata)
        case .transport:
            logger.error("\(activity) failed: the transport to the controller broke; closing the host", metadata: metadata)
            shutDown(error)
        case .closed, .cancelled:
            logger.trace("\(activity) abandoned: the host is closing", metadata: metadata)
        case .disconnected:
            logger.debug("\(activity) abandoned: the link is gone", metadata: metadata)
        case .commandTimedOut:
            logger.warning("\(activity) failed: the controller did not answer", metadata: metadata)
        default:
            logger.notice("\(activity) failed", metadata: metadata)
        }
    }

    // Timers: every timeout of the host (commands, connecting, encryption, signaling requests)
    // and the private-address rotation are deadlines on one schedule (`addDeadline(after:)`,
    // `cancelDeadline(_:)`), served by one sleeping task registered in `tasks`, so `close()`
    // stops it with the rest.

    package nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        tasks.start(work)
    }

    package func deadlinePassed(_ action: HostTimerAction) async {
        await action(self)
    }
}

/// What the host does when one of its timers passes.
package typealias HostTimerAction = @Sendable (isolated HCIHost) async -> Void
/// One timer of the host, for cancelling it.
typealias HostTimer = DeadlineSchedule<HostTimerAction>.ID
