import HaraldL2CAP
/// One signaling request of ours on one link, waiting for its response: the link and the
/// identifier the response will carry (Core spec Vol 3 Part A §4).
package struct L2CAPSignalingRequest: Hashable, Sendable {
    package let handle: UInt16
    package let identifier: UInt8
}

/// A reply L2CAP sends on its own (a signaling answer, Pairing Not Supported), counted against
/// its link's bound until ``L2CAPChannelManager/replyLeftQueue(_:)``.
package struct L2CAPReply: Sendable, Equatable {
    package let handle: UInt16
    /// The fixed channel it goes out on.
    package let cid: UInt16
    package let sdu: [UInt8]
    /// For an accepted Connection Parameter Update Request: the parameters the link layer should
    /// now apply (LE Connection Update).
    package let update: LEConnectionParameters?
    /// Which link of that handle it belongs to, so a late count never lands on a newer link that
    /// got the same handle.
    let link: UInt64
}

/// What one ACL fragment from the controller comes to.
package enum L2CAPInbound: Sendable, Equatable {
    /// Nothing yet (a PDU is still being reassembled), or nothing at all (a malformed fragment
    /// sequence, a channel nobody listens on, a response nobody waits for).
    case none
    /// The fragment names a connection L2CAP does not know.
    case unrouted
    /// An SDU for a fixed channel's owner above L2CAP: ATT (0x0004), or SMP (0x0006) when a
    /// Security Manager above the host answers it.
    case sdu(cid: UInt16, [UInt8])
    /// The response to a signaling request of ours: accepted (result 0) or refused/rejected.
    case response(L2CAPSignalingRequest, accepted: Bool)
    /// A reply to send on the link (already counted against the link's bound).
    case reply(L2CAPReply)
    /// A reply that was not queued because its link already has the most replies waiting.
    /// `firstOfFlood`: the first since the link's queue last drained.
    case replyDropped(handle: UInt16, cid: UInt16, waiting: Int, firstOfFlood: Bool)
    /// What the link's credit-based channels did with a signaling command or K-frame
    /// (`CreditBasedChannels`): the host carries the events out in order.
    case channelEvents(handle: UInt16, [CreditBasedChannels.Event])
}

/// The L2CAP channel manager of an LE host (Core spec Vol 3 Part A §1.1): per connection, it
/// rebuilds PDUs from ACL fragments, routes them by channel identifier, answers the LE signaling
/// channel, matches the responses to our own signaling requests, and bounds the replies it sends
/// on its own.
///
/// Fixed channels: ATT (0x0004) goes up to the connection's ATT channel; LE signaling (0x0005) is
/// answered here; SMP (0x0006) goes up to the Security Manager when one runs above the host,
/// else every Pairing Request and Security Request gets Pairing Failed (Pairing Not Supported).
/// Dynamic channels (credit-based, 0x0040–0x007F on LE) belong to each link's
/// `CreditBasedChannels` engine: their K-frames and the signaling commands about them go there,
/// and what it returns goes back to the host as `L2CAPInbound.channelEvents`. Its
/// signaling identifiers and ours (connection parameter updates) come from one pool per link.
///
/// A value with no I/O (the host sends what it returns, on its own serial executor), so every
/// rule here is tested by feeding it fragments.
package struct L2CAPChannelManager: Sendable {
    /// Replies that may wait for controller buffers at once on one connection. The peer decides
    /// how many replies there are, so without a bound a peer flooding the signaling or Security
    /// Manager channel while the controller holds its buffers would grow the outgoing queue
    /// without end. A peer that waits for each answer, as the signaling channel expects, never
    /// comes near it.
    package static let maximumQueuedReplies = 8

    private struct Link: Sendable {
        let serial: UInt64
        let role: LERole
        var reassembler: L2CAPReassembler
        var queuedReplies = 0
        var flooded = false
        /// The link's connection-oriented channels; also hands out the link's signaling identifiers.
        var channels = CreditBasedChannels()
    }

    /// Largest PDU accepted from a peer, header included (the reassembly bound).
    package let maximumPDUSize: Int
    /// Whether SMP PDUs go up (true) or are answered here with Pairing Not Supported.
    package let deliversSecurityManagerPDUs: Bool
    private var links: [UInt16: Link] = [:]
    private var pending: Set<L2CAPSignalingRequest> = []
    private var nextSerial: UInt64 = 0
    /// The SPSMs served on every link.
    private var servers: [UInt16: CreditBasedChannels.Server] = [:]

    package init(maximumPDUSize: Int, deliversSecurityManagerPDUs: Bool) {
        self.maximumPDUSize = maximumPDUSize
        self.deliversSecurityManagerPDUs = deliversSecurityManagerPDUs
    }

    // MARK: Links

    /// A connection came up with us in `role`.
    package mutating func linkOpened(_ handle: UInt16, role: LERole) {
        nextSerial += 1
        var link = Link(serial: nextSerial, role: role, reassembler: L2CAPReassembler(maximumPDUSize: maximumPDUSize))
        for server in servers.values { link.channels.register(server) }
        links[handle] = link
    }

    /// A connection ended: forgets it; returns our requests on it that will never be answered,
    /// and what its channels report (each closed, each open failed).
    package mutating func linkClosed(_ handle: UInt16) -> (requests: [L2CAPSignalingRequest], channelEvents: [CreditBasedChannels.Event]) {
        let events = links[handle]?.channels.linkClosed() ?? []
        links[handle] = nil
        let orphaned = pending.filter { $0.handle == handle }
        pending.subtract(orphaned)
        return (orphaned.sorted { $0.identifier < $1.identifier }, events)
    }

    // MARK: Credit-based channels

    /// Serves `server.spsm` on every link, open now or later.
    package mutating func register(_ server: CreditBasedChannels.Server) {
        servers[server.spsm] = server
        for handle in links.keys { links[handle]?.channels.register(server) }
    }

    /// Stops serving `spsm` on every link.
    package mutating func unregister(spsm: UInt16) {
        servers[spsm] = nil
        for handle in links.keys { links[handle]?.channels.unregister(spsm: spsm) }
    }

    /// Whether `spsm` is served.
    package func isServed(_ spsm: UInt16) -> Bool { servers[spsm] != nil }

    /// Runs `body` on the channels of link `handle`; nil when the link is not open.
    package mutating func channels<R, E: Error>(on handle: UInt16, _ body: (inout CreditBasedChannels) throws(E) -> R) throws(E) -> R? {
        guard links[handle] != nil else { return nil }
        return try body(&links[handle]!.channels)
    }

    /// Counts a reply the link's channels send to a peer request (a connection response, a
    /// disconnection response…) against the link's bound, as replies L2CAP makes itself are;
    /// ``L2CAPInbound/replyDropped(handle:cid:waiting:firstOfFlood:)`` when the link has too many waiting.
    package mutating func countChannelReply(_ command: SignalingCommand, handle: UInt16) -> L2CAPInbound {
        queueReply(command.pdu, cid: L2CAPFixedChannel.leSignaling, handle: handle, update: nil)
    }

    /// Whether `handle` is an open connection.
    package func isOpen(_ handle: UInt16) -> Bool { links[handle] != nil }

    // MARK: Receiving

    /// Takes one ACL fragment from the controller.
    package mutating func receive(_ fragment: ACLDataPacket) -> L2CAPInbound {
        guard var link = links[fragment.handle] else { return .unrouted }
        let pdu = link.reassembler.add(fragment)
        links[fragment.handle] = link
        guard let pdu else { return .none }
        switch pdu.cid {
        case L2CAPFixedChannel.attributeProtocol:
            return .sdu(cid: pdu.cid, pdu.payload)
        case L2CAPFixedChannel.leSignaling:
            return signaling(pdu.payload, handle: fragment.handle)
        case L2CAPFixedChannel.securityManager:
            if deliversSecurityManagerPDUs { return .sdu(cid: pdu.cid, pdu.payload) }
            guard let answer = answerSecurityManager(pdu.payload) else { return .none }
            return queueReply(answer, cid: pdu.cid, handle: fragment.handle, update: nil)
        case CreditBasedChannels.dynamicCIDs:
            let events = links[fragment.handle]?.channels.receiveKFrame(cid: pdu.cid, payload: pdu.payload) ?? []
            return events.isEmpty ? .none : .channelEvents(handle: fragment.handle, events)
        default:
            return .none
        }
    }

    private mutating func signaling(_ pdu: [UInt8], handle: UInt16) -> L2CAPInbound {
        if let command = try? SignalingCommand(pdu: pdu), let events = links[handle]?.channels.receive(command) {
            return events.isEmpty ? .none : .channelEvents(handle: handle, events)
        }
        if pdu.count >= 6,
            pdu[0] == LESignalingCode.connectionParameterUpdateResponse || pdu[0] == LESignalingCode.commandReject,
            let request = pending.remove(L2CAPSignalingRequest(handle: handle, identifier: pdu[1]))
        {
            links[handle]?.channels.finishExternalRequest(request.identifier)
            let accepted = pdu[0] == LESignalingCode.connectionParameterUpdateResponse && pdu[4] == 0 && pdu[5] == 0
            return .response(request, accepted: accepted)
        }
        let answer = answerLESignaling(pdu, role: links[handle]?.role ?? .central)
        guard let reply = answer.reply else { return .none }
        return queueReply(reply, cid: L2CAPFixedChannel.leSignaling, handle: handle, update: answer.update)
    }

    private mutating func queueReply(_ sdu: [UInt8], cid: UInt16, handle: UInt16, update: LEConnectionParameters?) -> L2CAPInbound {
        guard var link = links[handle] else { return .none }
        guard link.queuedReplies < Self.maximumQueuedReplies else {
            let first = !link.flooded
            link.flooded = true
            links[handle] = link
            return .replyDropped(handle: handle, cid: cid, waiting: link.queuedReplies, firstOfFlood: first)
        }
        link.queuedReplies += 1
        links[handle] = link
        return .reply(L2CAPReply(handle: handle, cid: cid, sdu: sdu, update: update, link: link.serial))
    }

    /// A reply went to the controller (or failed to): it no longer counts against its link.
    package mutating func replyLeftQueue(_ reply: L2CAPReply) {
        guard var link = links[reply.handle], link.serial == reply.link else { return }
        link.queuedReplies = max(0, link.queuedReplies - 1)
        if link.queuedReplies == 0 { link.flooded = false }
        links[reply.handle] = link
    }

    /// Replies of `handle` waiting for controller buffers.
    package func queuedReplies(on handle: UInt16) -> Int { links[handle]?.queuedReplies ?? 0 }

    /// Replies waiting on every link.
    package var queuedReplyCount: Int { links.values.reduce(0) { $0 + $1.queuedReplies } }

    // MARK: Our own requests

    /// Starts a signaling request of ours on `handle`: picks its identifier (never 0, never one
    /// still waiting on that link) and waits for its response. Nil when the link is not open or
    /// every identifier is taken.
    package mutating func beginRequest(on handle: UInt16) -> L2CAPSignalingRequest? {
        guard let identifier = links[handle]?.channels.beginExternalRequest() else { return nil }
        let request = L2CAPSignalingRequest(handle: handle, identifier: identifier)
        pending.insert(request)
        return request
    }

    /// Gives up on a request (it timed out or could not be sent); false when it was already
    /// answered or its link ended.
    package mutating func abandon(_ request: L2CAPSignalingRequest) -> Bool {
        links[request.handle]?.channels.finishExternalRequest(request.identifier)
        return pending.remove(request) != nil
    }

    /// Requests of ours waiting for their response.
    package var pendingRequestCount: Int { pending.count }
}
