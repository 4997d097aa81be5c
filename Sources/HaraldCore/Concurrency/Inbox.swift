import Foundation

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
public final class Inbox<Element: Sendable, Failure: Error>: @unchecked Sendable {
    // @unchecked Sendable: every stored property but `capacity` and `roomAvailable` (constants)
    // is read and written only with `lock` held. A waiting consumer's continuation is taken out
    // of `waiter` (set to nil) under the lock before it is resumed, so it is resumed exactly
    // once: by a producer (element or end), by `finish`, or by the cancellation handler,
    // whichever takes it.
    @usableFromInline let lock = NSLock()
    @usableFromInline var elements: [Element] = []
    @usableFromInline var head = 0
    @usableFromInline var waiter: UnsafeContinuation<Result<Element?, Failure>, Never>?
    /// Set once by ``finish(throwing:)``: nil while open, `.success(())` after a normal end.
    @usableFromInline var end: Result<Void, Failure>?
    /// Set when a yield was refused for room; the next take clears it and calls `roomAvailable`.
    @usableFromInline var producerWantsRoom = false
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
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return elements.count - head
    }

    /// True once ``finish(throwing:)`` was called.
    public var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return end != nil
    }

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
        lock.lock()
        guard end == nil else {
            lock.unlock()
            return .finished
        }
        if let waiting = waiter {
            waiter = nil
            lock.unlock()
            waiting.resume(returning: .success(element))
            return .accepted
        }
        guard elements.count - head < Swift.min(capacity, limit) else {
            producerWantsRoom = true
            lock.unlock()
            return .full
        }
        elements.append(element)
        lock.unlock()
        return .accepted
    }

    /// Ends the inbox: the consumer gets what is queued, then nil (or `failure`, thrown). Later
    /// yields are refused. Only the first call counts.
    public func finish(throwing failure: Failure? = nil) {
        lock.lock()
        guard end == nil else {
            lock.unlock()
            return
        }
        end = failure.map { .failure($0) } ?? .success(())
        let waiting = waiter
        waiter = nil
        lock.unlock()
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
                lock.lock()
                if let element = popLocked() {
                    let wake = takeRoomRequestLocked()
                    lock.unlock()
                    if wake { roomAvailable?() }
                    continuation.resume(returning: .success(element))
                } else if let end {
                    lock.unlock()
                    continuation.resume(returning: end.map { _ -> Element? in nil })
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: .success(nil))
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiting = waiter
            waiter = nil
            lock.unlock()
            waiting?.resume(returning: .success(nil))
        }
        return try outcome.get()
    }

    /// What the consumer gets without waiting: the oldest element, or the end once drained; nil
    /// when it has to wait.
    @inlinable
    func takeOrEnd() -> Result<Element?, Failure>? {
        lock.lock()
        if let element = popLocked() {
            let wake = takeRoomRequestLocked()
            lock.unlock()
            if wake { roomAvailable?() }
            return .success(element)
        }
        let ended = end.map { $0.map { _ -> Element? in nil } }
        lock.unlock()
        return ended
    }

    /// True (once) when a producer was refused for room since the last take (lock held).
    @inlinable
    func takeRoomRequestLocked() -> Bool {
        guard producerWantsRoom else { return false }
        producerWantsRoom = false
        return true
    }

    /// Takes the oldest queued element (lock held).
    @inlinable
    func popLocked() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
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
