import HaraldCore

/// The packets a transport has read from its controller and the host has not taken yet: a
/// bounded queue with one consumer, the host.
///
/// A transport hands each packet over with ``yield(_:)``, which refuses it when the inbox is
/// full. Policy when full: the socket transports keep the refused packets (at most one read's
/// worth) and stop reading until the host has taken one, so the socket's kernel buffer fills and
/// TCP (or the HCI socket) holds the controller back, as UART flow control would. Nothing is
/// dropped (a lost Command Complete or ACL fragment would break the host far worse than a
/// pause), and a controller that sends faster than the host handles events (an advertising
/// flood) cannot grow the host's memory without end.
///
/// The host reads it on its own actor: a packet that arrives while the host waits resumes it
/// there directly, and packets that arrived together are taken without suspending.
public final class HCIPacketInbox: AsyncSequence, Sendable {
    /// One packet from the controller.
    public typealias Element = HCIPacket
    /// Why the packets ended early: the link to the controller failed.
    public typealias Failure = HCITransportError

    let queue: Inbox<HCIPacket, HCITransportError>

    /// How many packets may wait for the host by default: far more than a controller sends in a
    /// burst (a scan's reports, a connection event's worth of notifications), few enough to
    /// bound the memory (about 1 MiB of 251-byte ACL packets).
    public static let defaultCapacity = 4096

    /// An empty inbox holding at most `capacity` packets (at least 1). `roomAvailable` is called
    /// (on the host's executor) when the host takes a packet after ``yield(_:)`` refused one as
    /// full: the transport that kept the refused packets hands them over and reads on.
    public init(capacity: Int = HCIPacketInbox.defaultCapacity, roomAvailable: (@Sendable () -> Void)? = nil) {
        queue = Inbox(capacity: capacity, roomAvailable: roomAvailable)
    }

    /// The most packets that may wait.
    public var capacity: Int { queue.capacity }

    /// Packets waiting for the host.
    public var count: Int { queue.count }

    /// Hands `packet` to the host without blocking. False when the inbox is full or finished (the
    /// packet is dropped).
    @discardableResult
    public func yield(_ packet: HCIPacket) -> Bool {
        queue.yield(packet) == .accepted
    }

    /// Ends the packets: normally after the transport was closed, with `failure` when the link
    /// failed. The host takes what is queued first. Only the first call counts.
    public func finish(throwing failure: HCITransportError? = nil) {
        queue.finish(throwing: failure)
    }

    /// The next packet, waiting for one; nil after a normal end or when the reading task is
    /// cancelled. One reader at a time.
    public func next(isolation actor: isolated (any Actor)? = #isolation) async throws(HCITransportError) -> HCIPacket? {
        try await queue.next(isolation: actor)
    }

    /// Reads the inbox (one reader at a time).
    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: HCIPacketInbox

        /// The next packet (``HCIPacketInbox/next(isolation:)``), on the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(HCITransportError) -> HCIPacket? {
            try await inbox.next(isolation: actor)
        }

        /// The next packet (``HCIPacketInbox/next(isolation:)``).
        public mutating func next() async throws(HCITransportError) -> HCIPacket? {
            try await inbox.next(isolation: nil)
        }
    }

    /// An iterator over the packets.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: self) }
}
