/// Streams of the same events for any number of watchers: each ``makeStream()`` gets every
/// element yielded from its creation on, and ``finish()`` ends them all (a stream asked for later
/// finishes at once).
///
/// Each stream keeps the newest elements up to the limit given at creation for a reader that
/// falls behind (the oldest go first), so a slow watcher never holds up the others or grows
/// without bound. A stream whose reader goes away (its loop ended or its task was cancelled)
/// leaves the table at once, under the lock, with no task started.
package final class StreamBroadcast<Element: Sendable>: Sendable {
    private struct State {
        var finished = false
        var streams: [UInt64: AsyncStream<Element>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    /// Everything mutable, behind one lock; continuations are yielded to and finished after it
    /// is released.
    private let state = Locked(State())
    /// Elements each stream holds for a reader that falls behind.
    package let bufferLimit: Int

    /// A broadcast whose streams each hold at most `bufferLimit` elements not yet read.
    package init(bufferingNewest bufferLimit: Int) {
        precondition(bufferLimit > 0, "a stream must hold at least one element")
        self.bufferLimit = bufferLimit
    }

    /// A new stream of the elements yielded from now on; finished at once after ``finish()``.
    package func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        let id: UInt64? = state.withLock { state in
            guard !state.finished else { return nil }
            state.nextID += 1
            state.streams[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `element` to every live stream.
    package func yield(_ element: Element) {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.yield(element) }
    }

    /// Finishes every stream, and every later one at once. Idempotent.
    package func finish() {
        let streams: [AsyncStream<Element>.Continuation] = state.withLock { state in
            state.finished = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    /// Whether ``finish()`` was called.
    package var isFinished: Bool { state.withLock { $0.finished } }

    /// Streams whose readers are still there.
    package var liveStreams: Int { state.withLock { $0.streams.count } }
}
