import Harald
import HaraldCore

/// The streams ``GATTConnection/serviceChanges()`` handed out: each gets every change from its
/// creation on, and all finish when the connection ends (a stream asked for later finishes at
/// once).
final class ServiceChangeStreams: Sendable {
    private struct State {
        var ended = false
        var streams: [UInt64: AsyncStream<ServiceChange>.Continuation] = [:]
        var nextID: UInt64 = 0
    }

    /// Everything mutable, behind one lock; continuations are yielded to and finished after it
    /// is released.
    private let state = Locked(State())

    /// Changes a stream holds for a reader that falls behind; older ones are dropped (the peer
    /// decides how many indications it sends).
    static let bufferLimit = 16

    /// A new stream of the changes from now on.
    func makeStream() -> AsyncStream<ServiceChange> {
        let (stream, continuation) = AsyncStream<ServiceChange>.makeStream(bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id: UInt64? = state.withLock { state in
            guard !state.ended else { return nil }
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

    /// Hands `change` to every live stream.
    func yield(_ change: ServiceChange) {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { stream.yield(change) }
    }

    /// Finishes every stream, and every later one at once. Idempotent.
    func finish() {
        let streams: [AsyncStream<ServiceChange>.Continuation] = state.withLock { state in
            state.ended = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }
}
