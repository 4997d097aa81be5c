import HaraldCore

/// The central's connection attempt, from the call to the controller's LE Connection Complete:
/// which attempt is under way, whether it is being cancelled and why, its timer, and who waits
/// for the outcome.
///
/// HCI allows one LE Create Connection (or LE Extended Create Connection) at a time (Core spec
/// Vol 4 Part E §7.8.12, §7.8.66); LE Create Connection Cancel (§7.8.13) ends it, and the
/// controller then reports LE Connection Complete with Unknown Connection Identifier — or with
/// success, when the link was made first. A value the host drives: each step returns what the
/// host does next (send the cancel, arm or stop a timer, resume the caller); the host sends the
/// commands, runs the timers and resumes the waiter. `Waiter` is the caller's continuation and
/// `Timer` the host's timer identity (tests use plain values).
package struct LECentralConnector<Waiter, Timer> {
    /// The attempt under way.
    package struct Attempt {
        /// The request's identity: a step for another (ended) attempt does nothing.
        package let id: UInt64
        package let peer: BluetoothAddress
        /// Who gets the outcome.
        package let waiter: Waiter
        /// The attempt's timeout, then (once cancelling) the bound on the controller's answer.
        package var timer: Timer?
        /// Set once the attempt is being cancelled: what its caller is told, unless the link is
        /// made first.
        package var cancelError: HCIError?
    }

    package private(set) var attempt: Attempt?

    /// No attempt.
    package init() {}

    /// Whether an attempt is under way (a new one is then refused as busy).
    package var isBusy: Bool { attempt != nil }

    /// Whether `id` is the attempt under way.
    package func isCurrent(_ id: UInt64) -> Bool { attempt?.id == id }

    /// Starts attempt `id` to `peer`; false (nothing changes) when another is under way.
    package mutating func begin(id: UInt64, peer: BluetoothAddress, waiter: Waiter) -> Bool {
        guard attempt == nil else { return false }
        attempt = Attempt(id: id, peer: peer, waiter: waiter)
        return true
    }

    /// What the host does once the controller accepted an attempt's create command.
    package enum AfterAcceptance: Equatable {
        /// Nothing: the attempt ended meanwhile.
        case nothing
        /// Cancel it now (it was cancelled while the command was on its way), with this error.
        case cancel(HCIError)
        /// Arm its timeout (when it has one) and wait for LE Connection Complete.
        case wait
    }

    /// The controller accepted attempt `id`'s create command (Command Status, success).
    package mutating func accepted(id: UInt64) -> AfterAcceptance {
        guard var current = attempt, current.id == id else { return .nothing }
        guard let error = current.cancelError else { return .wait }
        // The cancel went out before the controller had the attempt; it starts again now.
        current.cancelError = nil
        attempt = current
        return .cancel(error)
    }

    /// Sets attempt `id`'s timer; returns false (the host stops the timer) when that attempt is
    /// no longer under way.
    package mutating func arm(_ timer: Timer, id: UInt64) -> Bool {
        guard attempt?.id == id else { return false }
        attempt?.timer = timer
        return true
    }

    /// What the host does to cancel an attempt.
    package enum CancelStart {
        /// Nothing: the attempt ended, or is being cancelled already.
        case nothing
        /// Stop `previousTimer` (the attempt's timeout, if armed), arm the bound on the
        /// controller's answer, and send LE Create Connection Cancel.
        case sendCancel(previousTimer: Timer?)
    }

    /// Starts cancelling attempt `id`: its caller will get `error` unless the link is made first.
    package mutating func startCancelling(id: UInt64, error: HCIError) -> CancelStart {
        guard var current = attempt, current.id == id, current.cancelError == nil else { return .nothing }
        let previous = current.timer
        current.timer = nil
        current.cancelError = error
        attempt = current
        return .sendCancel(previousTimer: previous)
    }

    /// The error a cancel of attempt `id` reports, while it is being cancelled.
    package func cancelError(of id: UInt64) -> HCIError? {
        attempt?.id == id ? attempt?.cancelError : nil
    }

    /// Ends the attempt (only attempt `id`, when given) and returns it: the host stops its timer
    /// and resumes its waiter with a failure.
    package mutating func end(id: UInt64? = nil) -> Attempt? {
        guard let current = attempt, id == nil || current.id == id else { return nil }
        attempt = nil
        return current
    }

    /// What an LE Connection Complete for the central role means for the attempt.
    package enum Completion {
        /// No attempt waits for it: a controller fault (or a completion after the attempt gave up).
        case unexpected
        /// The link is made: stop `timer` and hand the link to `waiter` (even when the attempt
        /// was being cancelled: the link exists now).
        case connected(waiter: Waiter, timer: Timer?)
        /// The attempt failed: stop `timer`, resume `waiter` with `error` (a cancel's own
        /// error when it was cancelled, else Connection Failed with the controller's status).
        case failed(waiter: Waiter, timer: Timer?, error: HCIError)
    }

    /// The controller reported LE Connection Complete (or its enhanced form) with `status`, for
    /// a link we are central of.
    package mutating func completed(status: HCIStatus) -> Completion {
        guard let current = attempt else { return .unexpected }
        attempt = nil
        guard status.isSuccess else {
            return .failed(waiter: current.waiter, timer: current.timer, error: current.cancelError ?? .connectionFailed(current.peer, status))
        }
        return .connected(waiter: current.waiter, timer: current.timer)
    }
}
