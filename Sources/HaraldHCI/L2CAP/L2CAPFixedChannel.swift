import HaraldCore
/// An L2CAP fixed channel on one LE connection: whole SDUs in, whole SDUs out.
///
/// The ATT channel (CID 0x0004) of each ``LEConnection`` is one of these; the ATT/GATT layer
/// sends PDUs with ``send(_:)``, reads them from ``incoming`` (or has them pushed to a
/// ``L2CAPChannelReceiver``, see ``deliverSDUs(to:)``) and learns that the link is gone from
/// ``waitUntilClosed()``. The ATT MTU the two sides agreed on is kept in ``mtu`` for the ATT
/// layer (the host itself does not need it: it fragments to the controller's buffers).
public final class L2CAPFixedChannel: Sendable {
    /// L2CAP channel identifiers of the LE fixed channels.
    public static let attributeProtocol: UInt16 = 0x0004
    /// The LE signaling channel (CID 0x0005): connection parameter updates, credit-based channels.
    public static let leSignaling: UInt16 = 0x0005
    /// The Security Manager channel (CID 0x0006): SMP pairing PDUs.
    public static let securityManager: UInt16 = 0x0006

    /// Where received SDUs go. Until a reader chooses (``incoming`` or ``deliverSDUs(to:)``) they
    /// wait in `pending`, at most ``bufferSize`` of them, so none is lost or reordered.
    private enum Reader: Sendable {
        case undecided(pending: [[UInt8]], finished: Bool)
        case stream(AsyncStream<[UInt8]>, AsyncStream<[UInt8]>.Continuation)
        case receiver(L2CAPChannelReceiver)
    }

    /// The channel identifier.
    public let cid: UInt16
    /// The connection handle the channel belongs to.
    public let connectionHandle: UInt16
    /// How many received SDUs the channel holds for a reader that has not taken them yet before it
    /// drops new ones (``HCIHost/Configuration/channelBufferSize``).
    public let bufferSize: Int
    let closedSignal: Latch<HCIStatus>
    private let reader = Locked(Reader.undecided(pending: [], finished: false))
    private let mtuSlot = Locked(23)
    private let dropped = Locked(0)
    private let hostReference: HostReference

    init(cid: UInt16, connectionHandle: UInt16, host: HCIHost, closedSignal: Latch<HCIStatus>, bufferSize: Int) {
        self.cid = cid
        self.connectionHandle = connectionHandle
        self.hostReference = HostReference(host)
        self.closedSignal = closedSignal
        self.bufferSize = max(1, bufferSize)
    }

    /// SDUs received from the peer, in order. One consumer. Finishes when the link closes.
    ///
    /// Empty (finished at once) when the channel delivers to a receiver (``deliverSDUs(to:)``).
    public var incoming: AsyncStream<[UInt8]> {
        reader.withLock { reader in
            switch reader {
            case let .stream(stream, _):
                return stream
            case .receiver:
                return AsyncStream { $0.finish() }
            case let .undecided(pending, finished):
                let (stream, continuation) = AsyncStream.makeStream(
                    of: [UInt8].self,
                    bufferingPolicy: .bufferingOldest(bufferSize))
                for sdu in pending { continuation.yield(sdu) }
                if finished { continuation.finish() }
                reader = .stream(stream, continuation)
                return stream
            }
        }
    }

    /// Pushes every received SDU to `receiver` from now on, in order, on the host's thread, and
    /// then calls its `finish` once when the link closes; SDUs received before this call are
    /// handed over first. Returns false (and changes nothing) once ``incoming`` has been read.
    public func deliverSDUs(to receiver: L2CAPChannelReceiver) -> Bool {
        reader.withLock { reader in
            guard case let .undecided(pending, finished) = reader else { return false }
            reader = .receiver(receiver)
            // Under the lock, so an SDU arriving meanwhile waits and comes after these.
            for sdu in pending where !receiver.receive(sdu) { dropped.withLock { $0 += 1 } }
            if finished { receiver.finish() }
            return true
        }
    }

    /// Sends one SDU to the peer. Returns once the controller has taken all its fragments.
    /// Throws ``HCIError/disconnected(reason:)`` when the link is gone.
    nonisolated(nonsending) public func send(_ sdu: [UInt8]) async throws(HCIError) {
        if let reason = closedSignal.current { throw .disconnected(reason: reason) }
        guard let host = hostReference.host else { throw .closed }
        try await host.sendL2CAP(handle: connectionHandle, cid: cid, sdu: sdu)
    }

    /// The ATT MTU negotiated on this channel (23 until someone sets it after an Exchange MTU).
    public var mtu: Int { mtuSlot.value }

    /// Records the negotiated ATT MTU.
    public func setMTU(_ value: Int) { mtuSlot.withLock { $0 = value } }

    /// The disconnection reason once the link is gone, else nil.
    public var closeReason: HCIStatus? { closedSignal.current }

    /// Waits until the link is gone and returns the disconnection reason (nil if the waiting task
    /// is cancelled first).
    nonisolated(nonsending) public func waitUntilClosed() async -> HCIStatus? { await closedSignal.wait() }

    /// SDUs dropped because the reader fell more than the buffer size behind.
    public var droppedSDUCount: Int { dropped.value }

    /// Called by the host, one SDU at a time, in arrival order.
    func deliver(_ sdu: [UInt8]) {
        let receiver: L2CAPChannelReceiver? = reader.withLock { reader in
            switch reader {
            case let .receiver(receiver):
                return receiver
            case let .stream(_, continuation):
                if case .dropped = continuation.yield(sdu) { dropped.withLock { $0 += 1 } }
                return nil
            case .undecided(var pending, let finished):
                guard !finished else { return nil }
                if pending.count < bufferSize {
                    reader = .undecided(pending: [], finished: false)  // let `pending` be uniquely referenced
                    pending.append(sdu)
                    reader = .undecided(pending: pending, finished: false)
                } else {
                    dropped.withLock { $0 += 1 }
                }
                return nil
            }
        }
        // Outside the lock: the host is the only caller and calls one SDU at a time, and the
        // switch to a receiver happened under the lock after the pending SDUs were handed over.
        if let receiver, !receiver.receive(sdu) { dropped.withLock { $0 += 1 } }
    }

    /// Called by the host once, after the connection's disconnection signal fired.
    func finish() {
        let receiver: L2CAPChannelReceiver? = reader.withLock { reader in
            switch reader {
            case let .receiver(receiver):
                // Let go of the receiver: its closures often hold the connection that owns this
                // channel, and kept here they would keep the connection alive for ever (one
                // connection's worth of memory per link, found by scripts/soak).
                reader = .undecided(pending: [], finished: true)
                return receiver
            case let .stream(_, continuation):
                continuation.finish()
                return nil
            case let .undecided(pending, _):
                reader = .undecided(pending: pending, finished: true)
                return nil
            }
        }
        receiver?.finish()
    }
}

/// Takes a fixed channel's SDUs as the host receives them (see
/// ``L2CAPFixedChannel/deliverSDUs(to:)``), instead of a task reading
/// ``L2CAPFixedChannel/incoming``.
///
/// Both closures run on the host's thread while it handles ACL data, so they must be quick and
/// must never wait: queue the SDU, or hand it over, and return.
public struct L2CAPChannelReceiver: Sendable {
    /// Takes one SDU; returns false when it had to drop it (its reader is too far behind).
    public var receive: @Sendable ([UInt8]) -> Bool
    /// Called once, after the last SDU, when the link has closed (its disconnection reason is set).
    public var finish: @Sendable () -> Void

    /// `receive` takes each SDU and returns false to refuse it; `finish` runs once when the channel closes.
    public init(receive: @escaping @Sendable ([UInt8]) -> Bool, finish: @escaping @Sendable () -> Void) {
        self.receive = receive
        self.finish = finish
    }
}

/// A weak reference to the host, so channels and connections never keep it alive.
final class HostReference: Sendable {
    weak let host: HCIHost?
    init(_ host: HCIHost) { self.host = host }
}
