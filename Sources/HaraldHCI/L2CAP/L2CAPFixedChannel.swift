/// An L2CAP fixed channel on one LE connection: whole SDUs in, whole SDUs out.
///
/// The ATT channel (CID 0x0004) of each ``LEConnection`` is one of these; the ATT/GATT layer
/// sends PDUs with ``send(_:)``, reads them from ``incoming`` and learns that the link is gone
/// from ``waitUntilClosed()``. The ATT MTU the two sides agreed on is kept in ``mtu`` for the
/// ATT layer (the host itself does not need it: it fragments to the controller's buffers).
public final class L2CAPFixedChannel: Sendable {
    /// L2CAP channel identifiers of the LE fixed channels.
    public static let attributeProtocol: UInt16 = 0x0004
    public static let leSignaling: UInt16 = 0x0005
    public static let securityManager: UInt16 = 0x0006

    /// The channel identifier.
    public let cid: UInt16
    /// The connection handle the channel belongs to.
    public let connectionHandle: UInt16
    /// SDUs received from the peer, in order. One consumer. Finishes when the link closes.
    public let incoming: AsyncStream<[UInt8]>
    let continuation: AsyncStream<[UInt8]>.Continuation
    let closedSignal: OneShotSignal<HCIStatus>
    private let mtuSlot = Locked(23)
    private let dropped = Locked(0)
    private let hostReference: HostReference

    init(cid: UInt16, connectionHandle: UInt16, host: HCIHost, closedSignal: OneShotSignal<HCIStatus>, bufferSize: Int) {
        self.cid = cid
        self.connectionHandle = connectionHandle
        self.hostReference = HostReference(host)
        self.closedSignal = closedSignal
        (incoming, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingOldest(max(1, bufferSize)))
    }

    /// Sends one SDU to the peer. Returns once the controller has taken all its fragments.
    /// Throws ``HCIError/disconnected(reason:)`` when the link is gone.
    public func send(_ sdu: [UInt8]) async throws(HCIError) {
        if let reason = closedSignal.current { throw .disconnected(reason: reason) }
        guard let host = hostReference.host else { throw .closed }
        try await host.sendL2CAP(handle: connectionHandle, cid: cid, sdu: sdu)
    }

    /// The ATT MTU negotiated on this channel (23 until someone sets it after an Exchange MTU).
    public var mtu: Int { mtuSlot.get() }

    /// Records the negotiated ATT MTU.
    public func setMTU(_ value: Int) { mtuSlot.update { $0 = value } }

    /// The disconnection reason once the link is gone, else nil.
    public var closeReason: HCIStatus? { closedSignal.current }

    /// Waits until the link is gone and returns the disconnection reason (nil if the waiting task
    /// is cancelled first).
    public func waitUntilClosed() async -> HCIStatus? { await closedSignal.wait() }

    /// SDUs dropped because the reader of ``incoming`` fell more than the buffer size behind.
    public var droppedSDUCount: Int { dropped.get() }

    func deliver(_ sdu: [UInt8]) {
        if case .dropped = continuation.yield(sdu) { dropped.update { $0 += 1 } }
    }

    func finish() { continuation.finish() }
}

/// A weak reference to the host, so channels and connections never keep it alive.
final class HostReference: Sendable {
    weak let host: HCIHost?
    init(_ host: HCIHost) { self.host = host }
}
