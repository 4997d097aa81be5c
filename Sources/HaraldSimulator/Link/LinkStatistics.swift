/// What a simulated link has carried, for benchmarks and protocol-cost reports.
public struct LinkStatistics: Hashable, Sendable {
    /// L2CAP PDUs sent by each side.
    public var pdusSent: [LinkSide: Int] = [.central: 0, .peripheral: 0]
    /// Bytes of those PDUs (ATT bytes, without the L2CAP header).
    public var bytesSent: [LinkSide: Int] = [.central: 0, .peripheral: 0]
    /// Link-layer data packets sent by each side.
    public var packetsSent: [LinkSide: Int] = [.central: 0, .peripheral: 0]
    /// Connection events that carried at least one data packet.
    public var eventsWithData = 0
    /// Connection events from the link's creation to the last data packet.
    public var eventsElapsed = 0
    /// Air time of the data packets and the empty packets that answered them.
    public var airTime: Duration = .zero
    /// PDUs removed by injected faults.
    public var pdusDropped = 0

    /// Every count at zero.
    public init() {}
}

/// How a simulated link ended.
public enum LinkCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// One side disconnected on purpose (HCI reason 0x13, remote user terminated).
    case terminated(by: LinkSide)
    /// The link was lost (HCI reason 0x08, connection timeout), as when a device walks away or an
    /// injected fault drops it.
    case connectionTimeout
    /// A side closed the link because of a protocol failure (an ATT transaction timeout, say).
    case failure(String)

    /// How the link ended, e.g. `terminated by peripheral`, `connection timeout` or
    /// `closed: ATT transaction timeout`.
    public var description: String {
        switch self {
        case let .terminated(side): "terminated by \(side)"
        case .connectionTimeout: "connection timeout"
        case let .failure(detail): "closed: \(detail)"
        }
    }
}

/// Thrown by ``SimulatedLink/send(_:from:cid:)`` once the link is closed.
public struct SimulatedLinkClosed: Error, Hashable, Sendable {
    /// Why the link closed.
    public var reason: LinkCloseReason
}
