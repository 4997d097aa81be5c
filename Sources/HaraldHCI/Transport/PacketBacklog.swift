import Foundation

/// The packets a socket transport's reader thread has read and the host has not taken yet, at
/// most ``capacity`` of them.
///
/// Policy when full: the reader thread waits for room instead of reading on. The socket's
/// kernel buffer fills, then TCP (or the HCI socket) holds the controller back, as UART flow
/// control would: nothing is dropped (a lost Command Complete or ACL fragment would break the
/// host far worse than a pause), and a controller that sends faster than the host handles
/// events (an advertising flood) cannot grow the host's memory without end.
///
/// `@unchecked Sendable`: `queued` and `isAbandoned` are read and written only with `condition`
/// locked; `capacity` never changes.
final class PacketBacklog: @unchecked Sendable {
    let capacity: Int
    private let condition = NSCondition()
    private var queued = 0
    /// Set when nobody will take packets any more (the stream's consumer went away) or the
    /// transport is closing: the reader stops waiting.
    private var isAbandoned = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Packets read and not yet taken (for tests).
    var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queued
    }

    /// On the reader thread, before handing a packet over: waits until there is room. False when
    /// the backlog was abandoned (the packet is then not handed over).
    func waitForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queued >= capacity, !isAbandoned { condition.wait() }
        guard !isAbandoned else { return false }
        queued += 1
        return true
    }

    /// The consumer took a packet: one more fits.
    func taken() {
        condition.lock()
        queued -= 1
        condition.signal()
        condition.unlock()
    }

    /// Nobody takes packets any more: wake the reader and let it stop waiting.
    func abandon() {
        condition.lock()
        isAbandoned = true
        condition.broadcast()
        condition.unlock()
    }
}

/// The stream a socket transport hands to its host: packets from a ``PacketBacklog``, each
/// taken off the backlog as the host pulls it.
enum BackloggedStream {
    /// A stream over `backlog`, and the continuation the reader thread yields to (after
    /// ``PacketBacklog/waitForRoom()``).
    static func make(backlog: PacketBacklog)
        -> (AsyncThrowingStream<HCIPacket, any Error>, AsyncThrowingStream<HCIPacket, any Error>.Continuation)
    {
        let (inner, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        continuation.onTermination = { _ in backlog.abandon() }
        let source = IteratorBox(inner.makeAsyncIterator())
        let packets = AsyncThrowingStream<HCIPacket, any Error> {
            let packet = try await source.next()
            if packet != nil { backlog.taken() }
            return packet
        }
        return (packets, continuation)
    }

    /// The inner stream's iterator.
    ///
    /// `@unchecked Sendable`: the iterator is mutated only by ``next()``, which runs only from
    /// the outer stream's unfolding closure; an `AsyncThrowingStream` has one consumer (the
    /// host's reader task), which calls `next()` again only after the previous call returned, so
    /// no two calls overlap.
    private final class IteratorBox: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<HCIPacket, any Error>.AsyncIterator

        init(_ iterator: AsyncThrowingStream<HCIPacket, any Error>.AsyncIterator) { self.iterator = iterator }

        func next() async throws -> HCIPacket? { try await iterator.next() }
    }
}
