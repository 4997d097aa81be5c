// The data path of credit-based channels: K-frames in (credits checked, SDUs reassembled within
// our MTU and MPS), SDUs out (segmented to the peer's MPS, one credit per K-frame), and the
// credits given back as the reader takes SDUs.

/// One channel's state inside ``CreditBasedChannels``.
struct ChannelState: Sendable {
    enum Phase: Hashable, Sendable {
        case connecting(UInt8)
        /// Closed by its user while being opened: disconnected as soon as the answer opens it.
        case connectingAbandoned(UInt8)
        case open
        case disconnecting(UInt8)
    }

    /// One SDU waiting to be sent: its K-frames and how many have gone.
    struct OutboundSDU: Hashable, Sendable {
        var id: UInt64
        var frames: [[UInt8]]
        var next = 0
    }

    var info: CreditBasedChannelInfo
    var phase: Phase
    /// Credits we hold to send.
    var credits = ChannelCredits(initial: 0)
    var window: ReceiveWindow
    var reassembler: KFrameReassembler
    /// K-frames of the SDU being reassembled.
    var framesInSDU = 0
    /// K-frames of each received SDU the reader has not taken yet, oldest first.
    var undelivered: [Int] = []
    var outbound: [OutboundSDU] = []

    init(info: CreditBasedChannelInfo, phase: Phase, window: ReceiveWindow) {
        self.info = info
        self.phase = phase
        self.window = window
        reassembler = KFrameReassembler(mtu: info.mtu, mps: info.mps)
    }

    /// Cuts the K-frames not sent yet again for a peer MPS of `mps`, when it is smaller than they
    /// were cut for: their bytes in order (the SDU length first, for an SDU none of whose K-frames
    /// went yet) in K-frames of at most `mps`.
    mutating func resegmentQueuedFrames(mps: Int) {
        guard mps > 0 else { return }
        for index in outbound.indices {
            let unsent = outbound[index].frames[outbound[index].next...]
            guard unsent.contains(where: { $0.count > mps }) else { continue }
            let bytes = unsent.flatMap { $0 }
            var frames: [[UInt8]] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + mps, bytes.count)
                frames.append(Array(bytes[offset..<end]))
                offset = end
            }
            outbound[index].frames = Array(repeating: [], count: outbound[index].next) + frames
        }
    }

    mutating func dropQueuedData() {
        outbound = []
        undelivered = []
        reassembler = KFrameReassembler(mtu: info.mtu, mps: info.mps)
        framesInSDU = 0
    }
}

extension CreditBasedChannels {
    /// A K-frame's information payload arrived on our channel `cid`. K-frames for a channel that
    /// is not open are dropped; one that breaks the rules closes the channel.
    public mutating func receiveKFrame(cid: UInt16, payload: [UInt8]) -> [Event] {
        guard var channel = channels[cid], case .open = channel.phase else { return [] }
        guard channel.window.frameArrived() else {
            return closeOpenChannel(&channel, reason: .protocolViolation(.frameWithoutCredit))
        }
        channel.framesInSDU += 1
        let sdu: [UInt8]?
        do {
            sdu = try channel.reassembler.take(payload)
        } catch {
            return closeOpenChannel(&channel, reason: .protocolViolation(.kFrame(error)))
        }
        guard let sdu else {
            channels[cid] = channel
            return []
        }
        channel.undelivered.append(channel.framesInSDU)
        channel.framesInSDU = 0
        channels[cid] = channel
        return [.received(cid: cid, sdu: sdu)]
    }

    /// The reader of channel `cid` took its oldest received SDU: its K-frames are free again, and
    /// credits go back to the peer when enough are (``ReceiveWindow/release(_:)``).
    public mutating func consumed(on cid: UInt16) -> [Event] {
        guard var channel = channels[cid], case .open = channel.phase, !channel.undelivered.isEmpty else { return [] }
        let frames = channel.undelivered.removeFirst()
        let grant = channel.window.release(frames)
        channels[cid] = channel
        guard let grant, let identifier = takeIdentifier() else { return [] }
        // An indication has no response: its identifier is not kept.
        return [
            .signal(
                SignalingCommand(
                    code: LESignalingCode.flowControlCredit, identifier: identifier, FlowControlCreditIndication(cid: cid, credits: grant)))
        ]
    }

    /// Queues `sdu` on our open channel `cid` and sends the K-frames its credits allow; the rest
    /// go as credits arrive. ``Event/sent(cid:id:)`` with `id` reports its last K-frame handed over.
    public mutating func send(_ sdu: [UInt8], on cid: UInt16, id: UInt64) throws(ChannelRequestError) -> [Event] {
        guard var channel = channels[cid], case .open = channel.phase else { throw .notOpen }
        guard channel.outbound.count < Self.maximumQueuedSDUs else { throw .queueFull }
        let frames: [[UInt8]]
        do {
            frames = try KFrameSegmenter.segment(sdu, mps: channel.info.peerMPS, mtu: channel.info.peerMTU)
        } catch {
            throw .sduTooLong(sdu.count, peerMTU: channel.info.peerMTU)
        }
        channel.outbound.append(ChannelState.OutboundSDU(id: id, frames: frames))
        return pump(&channel)
    }

    /// SDUs queued on channel `cid` and not wholly sent yet.
    public func queuedSDUs(on cid: UInt16) -> Int { channels[cid]?.outbound.count ?? 0 }

    /// Sends K-frames while there are credits and frames, and stores the channel.
    mutating func pump(_ channel: inout ChannelState) -> [Event] {
        var events: [Event] = []
        while !channel.outbound.isEmpty, channel.credits.spend() {
            var head = channel.outbound[0]
            events.append(.kFrame(destinationCID: channel.info.remoteCID, payload: head.frames[head.next]))
            head.frames[head.next] = []
            head.next += 1
            if head.next == head.frames.count {
                channel.outbound.removeFirst()
                events.append(.sent(cid: channel.info.localCID, id: head.id))
            } else {
                channel.outbound[0] = head
            }
        }
        channels[channel.info.localCID] = channel
        return events
    }

    /// A Flow Control Credit Indication from the peer for its channel `remoteCID`.
    mutating func receiveCredits(_ indication: FlowControlCreditIndication) -> [Event] {
        guard var channel = channels.values.first(where: { $0.info.remoteCID == indication.cid && $0.phase == .open }) else { return [] }
        do {
            try channel.credits.grant(indication.credits)
        } catch {
            return closeOpenChannel(&channel, reason: .protocolViolation(.creditOverflow(error)))
        }
        return pump(&channel)
    }
}
