/// The connection-oriented channels of one LE link in LE Credit Based and Enhanced Credit Based
/// Flow Control Mode (Core spec Vol 3 Part A §3.4, §4.22–4.28, §10.1), without I/O.
///
/// Its owner feeds it the signaling commands and K-frames the peer sends and the calls of the
/// channels' users; it returns ``Event``s: signaling commands and K-frames to send, channels
/// opened, refused and closed, SDUs received and sent. So every rule here is tested by feeding it
/// bytes, and the HCI host and the simulator run the same rules. Nothing in it grows with what the
/// peer sends: at most 64 channels (the LE dynamic CID range), a credit window per channel
/// (``ReceiveWindow``), a bounded queue of SDUs to send per channel, at most
/// ``maximumPendingIncomingRequests`` peer requests waiting for the owner's answer.
public struct CreditBasedChannels: Sendable {
    /// A service on an SPSM: peers may open channels to it.
    public struct Server: Hashable, Sendable {
        /// The simplified protocol/service multiplexer (0x0001–0x00FF).
        public var spsm: UInt16
        /// What each channel to it takes.
        public var limits: CreditBasedReceiveLimits
        /// Most channels open to it at once on this link; more are refused (no resources).
        public var maximumChannels: Int

        /// A server on `spsm` taking `limits` on each channel, at most `maximumChannels` per link.
        public init(spsm: UInt16, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits(), maximumChannels: Int = 8) {
            (self.spsm, self.limits, self.maximumChannels) = (spsm, limits, max(1, maximumChannels))
        }
    }

    /// What the engine asks its owner to do or tells it happened.
    public enum Event: Hashable, Sendable {
        /// Send this command on the LE signaling channel.
        case signal(SignalingCommand)
        /// Send this K-frame payload on the peer's channel `destinationCID` (the owner adds the
        /// basic L2CAP header). K-frames of one channel must go out in the order given.
        case kFrame(destinationCID: UInt16, payload: [UInt8])
        /// A peer asks to open channels on a served SPSM: answer with ``CreditBasedChannels/accept(_:)`` or
        /// ``CreditBasedChannels/refuse(_:result:)`` (after checking the link's security for it).
        case incomingRequest(IncomingChannelRequest)
        /// A channel is open (ours answered, or a peer's accepted).
        case opened(CreditBasedChannelInfo)
        /// A request of ours failed for these channels of it.
        case openFailed(OutgoingChannelRequest, ChannelOpenFailure)
        /// A whole SDU arrived on our channel `cid`. Call ``CreditBasedChannels/consumed(on:)`` once its reader took it:
        /// its K-frames' credits go back to the peer from there.
        case received(cid: UInt16, sdu: [UInt8])
        /// The last K-frame of the SDU sent with `id` was handed over.
        case sent(cid: UInt16, id: UInt64)
        /// The channel is closed for its users (data for it is dropped from now on).
        case closed(cid: UInt16, ChannelCloseReason)
        /// The peer changed the MTU and MPS it takes on our channel `cid` (enhanced mode).
        case peerReconfigured(cid: UInt16, mtu: Int, mps: Int)
        /// Our reconfigure request with `identifier` was answered (nil: rejected or timed out).
        case reconfigured(identifier: UInt8, CreditBasedReconfigureResult?)
    }

    /// Peer requests waiting at once for the owner's answer; more are refused (no resources).
    public static let maximumPendingIncomingRequests = 4
    /// SDUs that may wait to be sent on one channel.
    public static let maximumQueuedSDUs = 64
    /// The LE dynamic channel identifiers (Core spec Vol 3 Part A §2.1).
    public static let dynamicCIDs: ClosedRange<UInt16> = 0x0040...0x007F

    enum Pending: Hashable, Sendable {
        case connect(OutgoingChannelRequest, CreditBasedMode, CreditBasedReceiveLimits)
        case disconnect(UInt16)
        case reconfigure(cids: [UInt16], mtu: Int, mps: Int)
        /// A request of the owner's own on the signaling channel (e.g. a connection parameter
        /// update), sharing the identifier space.
        case external
    }

    var channels: [UInt16: ChannelState] = [:]
    private(set) var servers: [UInt16: Server] = [:]
    var pending: [UInt8: Pending] = [:]
    var incoming: [UInt8: IncomingState] = [:]
    private var lastIdentifier: UInt8 = 0

    /// A link with no channel and no server.
    public init() {}

    // MARK: Servers

    /// Serves `server.spsm` from now on (replacing an earlier registration of it).
    public mutating func register(_ server: Server) { servers[server.spsm] = server }

    /// Stops serving `spsm`; open channels stay open.
    public mutating func unregister(spsm: UInt16) { servers[spsm] = nil }

    // MARK: Looking

    /// The open channel with our identifier `cid`.
    public func channel(_ cid: UInt16) -> CreditBasedChannelInfo? {
        guard let channel = channels[cid], case .open = channel.phase else { return nil }
        return channel.info
    }

    /// Channels open now.
    public var openChannelCount: Int { channels.values.filter { if case .open = $0.phase { true } else { false } }.count }

    /// Credits we hold on channel `cid`: K-frames we may send now.
    public func sendCredits(on cid: UInt16) -> Int { channels[cid]?.credits.available ?? 0 }

    /// The receive window of channel `cid`.
    public func receiveWindow(on cid: UInt16) -> ReceiveWindow? { channels[cid]?.window }

    /// Requests of ours waiting for their answer (any kind).
    public var pendingRequestCount: Int { pending.count }

    // MARK: Identifiers

    /// A signaling identifier for a request of the owner's own, unique among the link's pending
    /// requests; nil when all 255 are in use. Give it back with ``finishExternalRequest(_:)``.
    public mutating func beginExternalRequest() -> UInt8? {
        guard let identifier = takeIdentifier() else { return nil }
        pending[identifier] = .external
        return identifier
    }

    /// The owner's request with `identifier` was answered or given up.
    public mutating func finishExternalRequest(_ identifier: UInt8) {
        if pending[identifier] == .external { pending[identifier] = nil }
    }

    /// Whether a response with `identifier` answers one of the owner's own requests.
    public func isExternalRequest(_ identifier: UInt8) -> Bool { pending[identifier] == .external }

    mutating func takeIdentifier() -> UInt8? {
        for _ in 0..<255 {
            lastIdentifier = lastIdentifier == 0xFF ? 1 : lastIdentifier + 1
            if pending[lastIdentifier] == nil { return lastIdentifier }
        }
        return nil
    }

    func freeLocalCIDs(_ count: Int) -> [UInt16] {
        var free: [UInt16] = []
        for cid in Self.dynamicCIDs where channels[cid] == nil {
            free.append(cid)
            if free.count == count { break }
        }
        return free
    }

    // MARK: Opening

    /// Asks the peer to open `count` channels on `spsm` (one in LE mode, 1–5 in enhanced mode)
    /// taking what `limits` says; the answer comes as ``Event/opened(_:)`` per channel or
    /// ``Event/openFailed(_:_:)``.
    public mutating func connect(
        spsm: UInt16, mode: CreditBasedMode = .leCreditBased, count: Int = 1, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits()
    ) throws(ChannelRequestError) -> (OutgoingChannelRequest, [Event]) {
        let maximum = mode == .leCreditBased ? 1 : CreditBasedConnectionRequest.maximumChannels
        guard (1...maximum).contains(count) else { throw .invalidChannelCount(count) }
        guard limits.mtu >= mode.minimumMTU, limits.mps >= mode.minimumMTU else { throw .limitsTooSmall(mode) }
        let cids = freeLocalCIDs(count)
        guard cids.count == count else { throw .noFreeChannel }
        guard let identifier = takeIdentifier() else { throw .noFreeIdentifier }
        let request = OutgoingChannelRequest(identifier: identifier, localCIDs: cids)
        pending[identifier] = .connect(request, mode, limits)
        let window = limits.window
        for cid in cids {
            channels[cid] = ChannelState(
                info: CreditBasedChannelInfo(
                    localCID: cid, remoteCID: 0, spsm: spsm, mode: mode, mtu: limits.mtu, mps: limits.mps,
                    peerMTU: 0, peerMPS: 0, isIncoming: false),
                phase: .connecting(identifier), window: ReceiveWindow(window: window))
        }
        let command: SignalingCommand =
            mode == .leCreditBased
            ? SignalingCommand(
                code: LESignalingCode.leCreditBasedConnectionRequest, identifier: identifier,
                LECreditBasedConnectionRequest(
                    spsm: spsm, sourceCID: cids[0], mtu: UInt16(limits.mtu), mps: UInt16(limits.mps), initialCredits: UInt16(window)))
            : SignalingCommand(
                code: LESignalingCode.creditBasedConnectionRequest, identifier: identifier,
                CreditBasedConnectionRequest(
                    spsm: spsm, mtu: UInt16(limits.mtu), mps: UInt16(limits.mps), initialCredits: UInt16(window), sourceCIDs: cids))
        return (request, [.signal(command)])
    }

    // MARK: Closing

    /// Closes our channel `cid`: sends a Disconnection Request and drops what waits to be sent.
    /// The channel is closed for its users at once; its identifier stays taken until the peer
    /// answers or the request times out. A channel still being opened is closed as soon as the
    /// peer's answer opens it.
    public mutating func disconnect(_ cid: UInt16) -> [Event] {
        guard var channel = channels[cid] else { return [] }
        switch channel.phase {
        case .open:
            return closeOpenChannel(&channel, reason: .closedLocally)
        case let .connecting(identifier):
            channel.phase = .connectingAbandoned(identifier)
            channels[cid] = channel
            return []
        case .connectingAbandoned, .disconnecting:
            return []
        }
    }

    /// Sends a Disconnection Request for an open channel and reports it closed.
    mutating func closeOpenChannel(_ channel: inout ChannelState, reason: ChannelCloseReason) -> [Event] {
        let cid = channel.info.localCID
        guard let identifier = takeIdentifier() else {
            // Every identifier is waiting: forget the channel without asking (it cannot be
            // reached from here, and the peer's K-frames to it are dropped).
            channels[cid] = nil
            return [.closed(cid: cid, reason)]
        }
        pending[identifier] = .disconnect(cid)
        channel.phase = .disconnecting(identifier)
        channel.dropQueuedData()
        channels[cid] = channel
        let request = DisconnectionCommand(destinationCID: channel.info.remoteCID, sourceCID: cid)
        return [
            .closed(cid: cid, reason),
            .signal(SignalingCommand(code: LESignalingCode.disconnectionRequest, identifier: identifier, request)),
        ]
    }

    /// A request of ours got no answer in time (the owner's timer, ~RTX): gives it up.
    public mutating func requestTimedOut(_ identifier: UInt8) -> [Event] {
        guard let request = pending.removeValue(forKey: identifier) else { return [] }
        switch request {
        case let .connect(outgoing, _, _):
            for cid in outgoing.localCIDs { channels[cid] = nil }
            return [.openFailed(outgoing, .timedOut)]
        case let .disconnect(cid):
            channels[cid] = nil
            return []
        case .reconfigure:
            return [.reconfigured(identifier: identifier, nil)]
        case .external:
            return []
        }
    }

    /// The LE link went down: every channel closes, every request of ours fails.
    public mutating func linkClosed() -> [Event] {
        var events: [Event] = []
        for (_, request) in pending.sorted(by: { $0.key < $1.key }) {
            switch request {
            case let .connect(outgoing, _, _): events.append(.openFailed(outgoing, .linkLost))
            case let .reconfigure(cids, _, _): _ = cids
            case .disconnect, .external: break
            }
        }
        for cid in channels.keys.sorted() {
            if case .open = channels[cid]?.phase { events.append(.closed(cid: cid, .linkLost)) }
        }
        channels = [:]
        pending = [:]
        incoming = [:]
        return events
    }
}

/// Why a request of ours to open channels failed.
public enum ChannelOpenFailure: Hashable, Sendable {
    /// The peer refused with this result (SPSM not supported, insufficient security, …).
    case refused(CreditBasedConnectionResult)
    /// The peer rejected the command (it does not support the mode).
    case commandRejected(reason: UInt16)
    /// The peer answered with parameters the mode does not allow; the channel was closed.
    case invalidResponse
    /// No answer in time.
    case timedOut
    /// The LE link went down first.
    case linkLost
}

/// Why a call on the engine could not be made.
public enum ChannelRequestError: Error, Hashable, Sendable {
    /// All 64 LE dynamic channel identifiers are in use.
    case noFreeChannel
    /// All 255 signaling identifiers are waiting for answers.
    case noFreeIdentifier
    /// LE mode opens one channel per request, enhanced mode one to five.
    case invalidChannelCount(Int)
    /// The MTU or MPS is under the mode's minimum.
    case limitsTooSmall(CreditBasedMode)
    /// The channel is not open (or never was).
    case notOpen
    /// The SDU is longer than the peer's MTU.
    case sduTooLong(Int, peerMTU: Int)
    /// ``CreditBasedChannels/maximumQueuedSDUs`` SDUs already wait on the channel.
    case queueFull
}
