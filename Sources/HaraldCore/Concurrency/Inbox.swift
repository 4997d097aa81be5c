/// A first-in, first-out queue from producers on any thread to one consumer task, bounded, that
/// ends once (normally or with an error).
///
/// The one bounded inbox of the stack's lower layers: a transport's packets waiting for the HCI
/// host, a bearer's PDUs waiting for its engine. Compared with `AsyncThrowingStream` it is
/// concrete (its inlinable code is specialised in the caller, so an element costs no generic
/// type-metadata lookups), and ``next(isolation:)`` stays on the caller's actor: an element
/// arriving while the consumer waits resumes it straight on its own executor (one job, no hop
/// through the global executor), and elements that arrived together are taken without
/// suspending.
///
/// A full inbox refuses an element (``yield(_:)`` returns ``InboxYieldResult/full``); it never
/// blocks the producer. A producer that must not lose anything (a transport's reader) keeps the
/// refused elements, stops reading its source, and is told by the `roomAvailable` callback when
/// the consumer has taken one after a refusal.
///
/// The consumer's wait ends when an element arrives, when the inbox finishes, or when the
/// consumer's task is cancelled (``next(isolation:)`` then returns nil and leaves the elements
/// queued).
///
/// Public only so that its inlinable code is specialised in the engines' modules: this
/// toolchain does not inline `package` inlinable code across modules (a generic `package`
/// method was called unspecialised from the next module, paying type-metadata lookups per
/// element). Apps have no use for it.
public final class Inbox<Element: Sendable, Failure: Error>: Sendable {
    // A waiting consumer's continuation is taken out of `waiter` (set to nil) under the lock
    // before it is resumed, so it is resumed exactly once: by a producer (element or end), by
    // `finish`, or by the cancellation handler, whichever takes it.
    @usableFromInline
    struct State {
        @usableFromInline var elements: [Element] = []
        @usableFromInline var head = 0
        @usableFromInline var waiter: UnsafeContinuation<Result<Element?, Failure>, Never>?
        /// Set once by ``Inbox/finish(throwing:)``: nil while open, `.success(())` after a normal end.
        @usableFromInline var end: Result<Void, Failure>?
        /// Set when a yield was refused for room; the next take clears it and calls `roomAvailable`.
        @usableFromInline var producerWantsRoom = false

        @usableFromInline init() {}

        /// True (once) when a producer was refused for room since the last take.
        @inlinable
        mutating func takeRoomRequest() -> Bool {
            guard producerWantsRoom else { return false }
            producerWantsRoom = false
            return true
        }

        /// Takes the oldest queued element.
        @inlinable
        mutating func pop() -> Element? {
            guard head < elements.count else { return nil }
            let element = elements[head]
            head += 1
            if head == elements.count {
                elements.removeAllKeepingStorage()
                head = 0
            } else if head >= 1024, head * 2 >= elements.count {
                elements.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    // Elements are Sendable and the continuation is only resumed after being taken out.
    @usableFromInline let state = Locked(State())
    /// Called (outside the lock, on the consumer's thread) when the consumer took an element
    /// after a refusal for room.
    @usableFromInline let roomAvailable: (@Sendable () -> Void)?

    /// The most elements that may wait for the consumer.
    public let capacity: Int

    /// An empty inbox holding at most `capacity` elements (at least 1). `roomAvailable` is
    /// called when the consumer takes an element after ``yield(_:)`` refused one as full.
    public init(capacity: Int, roomAvailable: (@Sendable () -> Void)? = nil) {
        self.capacity = Swift.max(1, capacity)
        self.roomAvailable = roomAvailable
    }

    /// Elements waiting for the consumer.
    public var count: Int { state.withLock { $0.elements.count - $0.head } }

    /// True once ``finish(throwing:)`` was called.
    public var isFinished: Bool { state.withLock { $0.end != nil } }

    /// Queues `element` for the consumer, or hands it over when the consumer waits; never blocks.
    @inlinable
    @discardableResult
    public func yield(_ element: Element) -> InboxYieldResult {
        yield(element, limit: capacity)
    }

    /// Like ``yield(_:)`` with a bound of its own for this element: refused when `limit` (or
    /// ``capacity``, if smaller) elements wait.
    @inlinable
    @discardableResult
    public func yield(_ element: Element, limit: Int) -> InboxYieldResult {
        let bound = Swift.min(capacity, limit)
        let (result, waiting) = state.withLock { state -> (InboxYieldResult, UnsafeContinuation<Result<Element?, Failure>, Never>?) in
            guard state.end == nil else { return (.finished, nil) }
            if let waiting = state.waiter {
                state.waiter = nil
                return (.accepted, waiting)
            }
            guard state.elements.count - state.head < bound else {
                state.producerWantsRoom = true
                return (.full, nil)
            }
            state.elements.append(element)
            return (.accepted, nil)
        }
        waiting?.resume(returning: .success(element))
        return result
    }

    /// Ends the inbox: the consumer gets what is queued, then nil (or `failure`, thrown). Later
    /// yields are refused. Only the first call counts.
    public func finish(throwing failure: Failure? = nil) {
        let (first, waiting) = state.withLock { state -> (Bool, UnsafeContinuation<Result<Element?, Failure>, Never>?) in
            guard state.end == nil else { return (false, nil) }
            state.end = failure.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        guard first else { return }
        if let failure {
            waiting?.resume(returning: .failure(failure))
        } else {
            waiting?.resume(returning: .success(nil))
        }
    }

    /// The next element, waiting for one when none is queued. Nil once the inbox has finished
    /// normally and is drained, or when the waiting task is cancelled; throws the failure the
    /// inbox finished with once it is drained. One consumer: calls must not overlap.
    @inlinable
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(Failure) -> Element? {
        if let ready = takeOrEnd() { return try ready.get() }
        if Task.isCancelled { return nil }
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Result<Element?, Failure>, Never>) in
                let cancelled = Task.isCancelled
                let (now, wake) = state.withLock { state -> (Result<Element?, Failure>?, Bool) in
                    if let element = state.pop() { return (.success(element), state.takeRoomRequest()) }
                    if let end = state.end { return (end.map { _ -> Element? in nil }, false) }
                    if cancelled { return (.success(nil), false) }
                    state.waiter = continuation
                    return (nil, false)
                }
                if wake { roomAvailable?() }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiting?.resume(returning: .success(nil))
        }
        return try outcome.get()
    }

    /// What the consumer gets without waiting: the oldest element, or the end once drained; nil
    /// when it has to wait.
    @inlinable
    func takeOrEnd() -> Result<Element?, Failure>? {
        let (ready, wake) = state.withLock { state -> (Result<Element?, Failure>?, Bool) in
            if let element = state.pop() { return (.success(element), state.takeRoomRequest()) }
            return (state.end.map { $0.map { _ -> Element? in nil } }, false)
        }
        if wake { roomAvailable?() }
        return ready
    }
}

extension Inbox: AsyncSequence {
    /// Reads the inbox; every iterator takes from the same queue (one consumer at a time).
    public struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let inbox: Inbox

        @inlinable
        init(inbox: Inbox) { self.inbox = inbox }

        /// The next element (``Inbox/next(isolation:)``), on the caller's actor.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Element? {
            try await inbox.next(isolation: actor)
        }

        /// The next element (``Inbox/next(isolation:)``).
        @inlinable
        public mutating func next() async throws(Failure) -> Element? {
            try await inbox.next(isolation: nil)
        }
    }

    /// An iterator over the inbox (one consumer at a time).
    @inlinable
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: self) }
}

/// What ``Inbox/yield(_:)`` did with an element.
public enum InboxYieldResult: Equatable, Sendable {
    /// Queued, or handed to the consumer that waited.
    case accepted
    /// Refused: ``Inbox/capacity`` elements already wait.
    case full
    /// Refused: the inbox has ended.
    case finished
}

extension Array {
    /// Empties the array and keeps its storage. For the few elements a drained queue holds this
    /// costs a fraction of `removeAll(keepingCapacity: true)`, which goes through the generic
    /// `replaceSubrange`.
    @inlinable
    mutating func removeAllKeepingStorage() {
        while !isEmpty { removeLast() }
    }
}
