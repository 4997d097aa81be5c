/// The flow control mode of a connection-oriented channel on LE (Core spec Vol 3 Part A §3.4).
public enum CreditBasedMode: Hashable, Sendable, CustomStringConvertible {
    /// LE Credit Based Flow Control Mode (Bluetooth 4.1): one channel per request, MTU and MPS ≥ 23.
    case leCreditBased
    /// Enhanced Credit Based Flow Control Mode (Bluetooth 5.2): up to five channels per request,
    /// MTU and MPS ≥ 64, reconfigurable.
    case enhancedCreditBased

    /// The smallest MTU and MPS the mode allows.
    public var minimumMTU: Int { self == .leCreditBased ? 23 : 64 }

    /// `LE credit-based` or `enhanced credit-based`.
    public var description: String { self == .leCreditBased ? "LE credit-based" : "enhanced credit-based" }
}

/// What one end of a channel takes: the MTU and MPS it announces and the room it has for received
/// data, from which its credit window follows (``ReceiveWindow``).
public struct CreditBasedReceiveLimits: Hashable, Sendable {
    /// Largest SDU taken, in bytes (23…65,535; 64 or more in enhanced mode).
    public var mtu: Int
    /// Largest K-frame payload taken, in bytes (23…65,533; 64 or more in enhanced mode). 247 fills
    /// one link-layer PDU of a link with Data Length Extension (251 bytes) with its L2CAP header.
    public var mps: Int
    /// Bytes of received data the channel may hold for its reader before the peer runs out of
    /// credits.
    public var bufferCapacity: Int

    /// Limits of `mtu`, `mps` and `bufferCapacity` bytes, each brought into the range the spec
    /// allows.
    public init(mtu: Int = 2048, mps: Int = 247, bufferCapacity: Int = 64 * 1024) {
        self.mtu = min(65_535, max(23, mtu))
        self.mps = min(65_533, max(23, mps))
        self.bufferCapacity = max(0, bufferCapacity)
    }

    /// The credit window these limits give.
    public var window: Int { ReceiveWindow.window(mtu: mtu, mps: mps, bufferCapacity: bufferCapacity) }
}

/// An open channel as both ends agreed it.
public struct CreditBasedChannelInfo: Hashable, Sendable {
    /// Our channel identifier (where the peer sends).
    public var localCID: UInt16
    /// The peer's channel identifier (where we send).
    public var remoteCID: UInt16
    /// The SPSM the channel was opened on.
    public var spsm: UInt16
    /// The flow control mode it runs in.
    public var mode: CreditBasedMode
    /// Largest SDU we take, in bytes.
    public var mtu: Int
    /// Largest K-frame payload we take.
    public var mps: Int
    /// Largest SDU the peer takes: what we may send in one SDU.
    public var peerMTU: Int
    /// Largest K-frame payload the peer takes.
    public var peerMPS: Int
    /// Whether the peer opened it (we serve its SPSM).
    public var isIncoming: Bool
}

/// Why a channel closed.
public enum ChannelCloseReason: Hashable, Sendable {
    /// We asked for it (Disconnection Request, answered or not).
    case closedLocally
    /// The peer sent a Disconnection Request.
    case closedByPeer
    /// The LE link went down.
    case linkLost
    /// The peer broke a rule of the mode and we disconnected the channel: an SDU over our MTU, a
    /// K-frame over our MPS, a K-frame without credit, credits past 65,535, a malformed SDU.
    case protocolViolation(ChannelViolation)
    /// A request of ours got no answer in time.
    case timedOut
}

/// A rule of credit-based flow control the peer broke (Core spec Vol 3 Part A §10.1, §3.4.3).
public enum ChannelViolation: Hashable, Sendable {
    /// A K-frame, or an SDU's announced length, broke the limits we announced.
    case kFrame(KFrameError)
    /// A K-frame arrived while the peer held no credit.
    case frameWithoutCredit
    /// A Flow Control Credit Indication took the peer's credits past 65,535.
    case creditOverflow(CreditOverflow)
    /// The peer answered our request with parameters the mode does not allow.
    case invalidParameters
}

/// One connection request of ours in flight, as the engine answers it (``CreditBasedChannels``).
public struct OutgoingChannelRequest: Hashable, Sendable {
    /// The signaling identifier the request went out with.
    public var identifier: UInt8
    /// Our channel identifiers it asks for, in order.
    public var localCIDs: [UInt16]
}

/// A peer's request to open channels on an SPSM we serve, waiting for our answer
/// (``CreditBasedChannels/accept(_:)`` or ``CreditBasedChannels/refuse(_:result:)``): the place to
/// check the link's security for the SPSM.
public struct IncomingChannelRequest: Hashable, Sendable {
    /// The signaling identifier of the request.
    public var identifier: UInt8
    /// The SPSM it asks for.
    public var spsm: UInt16
    /// The flow control mode it asks in.
    public var mode: CreditBasedMode
    /// The peer's channel identifiers, one per channel asked for.
    public var remoteCIDs: [UInt16]
    /// The largest SDU the peer takes.
    public var peerMTU: Int
    /// The largest K-frame payload the peer takes.
    public var peerMPS: Int
    /// The credits it gives us on each channel.
    public var initialCredits: Int
}
