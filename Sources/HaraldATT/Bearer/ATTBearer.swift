import HaraldCore

/// Something an ATT bearer tells its engine: a PDU arrived, or the bearer closed.
public enum ATTBearerEvent: Sendable, Hashable {
    /// One complete ATT PDU from the peer (opcode first), exactly as received.
    case received([UInt8])
    /// The bearer closed; no event follows and every later `send` fails.
    case closed(ATTCloseReason)
    /// The ATT_MTU of the bearer changed without this engine's involvement (the other role on
    /// the same link completed an Exchange MTU); the engine adopts it.
    case mtuChanged(Int)
}

/// Why an ATT bearer closed.
public enum ATTCloseReason: Sendable, Hashable {
    /// This side closed it (for example the app disconnected).
    case closedLocally
    /// The peer closed it.
    case closedByPeer
    /// A request went unanswered for the ATT transaction timeout (30 s by default); Core spec
    /// Vol 3 Part F §3.3.3 makes the bearer unusable, so the engine closed it.
    case transactionTimeout
    /// The link under the bearer went away; `code` is the HCI disconnect reason when known
    /// (0x08 connection timeout, 0x13 remote user terminated, …).
    case linkLost(code: UInt8?)
    /// A PDU from the peer broke the protocol (``ATTProtocolViolation``, described here), so the
    /// engine closed the bearer.
    case protocolViolation(String)
}

/// Why a PDU could not be sent.
public enum ATTBearerError: Error, Sendable, Hashable {
    /// The bearer is closed.
    case closed
    /// The PDU is longer than the bearer can carry.
    case pduTooLong(size: Int, limit: Int)
}

/// A channel that carries ATT PDUs between this device and one peer: the fixed L2CAP channel
/// 0x0004 over an LE link, an EATT channel, or an in-memory link in the simulator.
///
/// The GATT client and server engines drive a bearer and nothing else, so the same engines run
/// over every transport. A bearer:
/// - delivers inbound PDUs in order on ``events`` (one consumer: the engine), ending with
///   `.closed` exactly once and then finishing the stream;
/// - sends whole PDUs with ``send(_:)``, in call order for calls from one task; `send` may
///   suspend for flow control (a link model can make it wait for the next connection event) and
///   throws ``ATTBearerError/closed`` once the bearer is closed;
/// - knows the largest ATT_MTU it can receive (``localMTU``, offered in Exchange MTU) and is told
///   the negotiated ATT_MTU (``didNegotiateMTU(_:)``) so a link model can size its packets.
///
/// Fragmentation into link-layer packets, encryption and signalling belong to the bearer, never to
/// the engines.
///
/// A bearer also says where the engines on it start their background tasks (``taskStarter``):
/// a simulated bearer names its simulation's executor, every other bearer the global one.
public protocol ATTBearer: Sendable {
    /// Inbound PDUs and the final close event. Iterate it once.
    var events: AsyncStream<ATTBearerEvent> { get }

    /// Largest ATT PDU, in bytes, this side can receive (≥ 23); the engines offer it in Exchange
    /// MTU.
    var localMTU: Int { get }

    /// Sends one complete PDU (opcode first).
    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError)

    /// Closes the bearer; both sides get `.closed`. Closing twice does nothing.
    nonisolated(nonsending) func close(_ reason: ATTCloseReason) async

    /// Called by an engine once Exchange MTU has settled the ATT_MTU, in bytes.
    nonisolated(nonsending) func didNegotiateMTU(_ mtu: Int) async

    /// Where an engine on this bearer starts its tasks (readers, deadline timers) unless it was
    /// given a starter of its own. The default starts plain `Task { }`s.
    var taskStarter: TaskStarter { get }

    /// Sends one complete PDU now if that needs no waiting, from synchronous code (a device's
    /// timer in a simulation); never suspends. The default says ``ATTImmediateSend/unsupported``.
    func sendWithoutWaiting(_ pdu: [UInt8]) -> ATTImmediateSend
}

/// What ``ATTBearer/sendWithoutWaiting(_:)`` did with a PDU.
public enum ATTImmediateSend: Sendable, Hashable {
    /// Handed to the link.
    case sent
    /// Not sent: the link's transmit buffer is full right now (a sender that may wait uses
    /// ``ATTBearer/send(_:)``).
    case full
    /// Not sent: the bearer is closed.
    case closed
    /// Not sent: this bearer cannot send without possibly waiting.
    case unsupported
}

extension ATTBearer {
    public var taskStarter: TaskStarter { .default }

    public func sendWithoutWaiting(_ pdu: [UInt8]) -> ATTImmediateSend { .unsupported }
}

/// ATT constants from Core spec Vol 3 Part F.
public enum ATT {
    /// The default and minimum LE ATT_MTU, in bytes.
    public static let defaultMTU = 23
    /// The longest attribute value, in bytes.
    public static let maximumValueLength = 512
    /// The ATT transaction timeout.
    public static let transactionTimeout: Duration = .seconds(30)
}
