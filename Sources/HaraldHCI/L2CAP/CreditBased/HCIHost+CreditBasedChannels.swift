import HaraldCodec
import HaraldL2CAP
import Logging

// The host's side of credit-based channels: it calls each link's engine (in the channel manager)
// and carries out what it returns — K-frames and signaling commands queued for the controller in
// the order given, callers resumed — keeping its callers in `channelTable`.
//
// Everything an engine returns is queued at once and in order (never from a background task), so a
// connection response always leaves before the first K-frame on the channel it opens, and a
// channel's K-frames never overtake each other.
extension HCIHost {
    /// Largest signaling wait for a Disconnection Request or reconfiguration of ours (the spec's RTX
    /// is 1…60 s): past it the request is given up and the channel identifier freed.
    static let channelSignalingTimeout: Duration = .seconds(30)

    // MARK: Opening

    /// Opens a connection-oriented channel on `spsm` over the link `handle` and waits for the
    /// peer's answer within `timeout`. Throws ``HCIError/channelOpenFailed(_:)`` when the peer
    /// refuses (with the spec's result: answer a security refusal by securing the link and asking
    /// again) or answers badly.
    public func openCreditBasedChannel(
        handle: UInt16, spsm: UInt16, mode: CreditBasedMode = .leCreditBased, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits(),
        timeout: Duration
    ) async throws(HCIError) -> L2CAPCreditBasedChannel {
        try ensureOpen()
        guard connections[handle] != nil else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        let opened: (OutgoingChannelRequest, [CreditBasedChannels.Event])
        do {
            guard
                let result = try l2cap.channels(
                    on: handle, { channels throws(ChannelRequestError) in try channels.connect(spsm: spsm, mode: mode, limits: limits) })
            else { throw HCIError.disconnected(reason: .unknownConnectionIdentifier) }
            opened = result
        } catch let error as HCIError {
            throw error
        } catch {
            throw .unsupported("opening a channel: \(error)")
        }
        let (request, events) = opened
        let key = ChannelRequestKey(handle: handle, identifier: request.identifier)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<L2CAPCreditBasedChannel, HCIError>, Never>) in
            channelTable.opens[key] = CreditBasedChannelTable.Open(continuation: continuation, localCID: request.localCIDs[0])
            armChannelRequestTimer(key, after: timeout)
            carryChannelEvents(events, on: handle)
            startBackground { host in await host.sendQueuedACL() }
        }
        return try result.get()
    }

    // MARK: Serving

    /// Serves `spsm` on every link: peers may open channels to it, each admitted by `admit` (the
    /// place to check the link's security; nil accepts, a result refuses) and then delivered on
    /// the listener's stream. Throws ``HCIError/busy(_:)`` when the SPSM is served already.
    public func serveCreditBasedChannels(
        spsm: UInt16, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits(), maximumChannelsPerLink: Int = 8,
        admit: @escaping @Sendable (UInt16, IncomingChannelRequest) async -> CreditBasedConnectionResult? = { _, _ in nil }
    ) throws(HCIError) -> CreditBasedChannelListener {
        try ensureOpen()
        guard channelTable.servers[spsm] == nil else { throw .busy("SPSM 0x\(Hex.word(spsm)) is served already") }
        // Channels waiting for the app to take them: a bounded few, the rest closed as they come.
        let (stream, continuation) = AsyncStream.makeStream(of: L2CAPCreditBasedChannel.self, bufferingPolicy: .bufferingOldest(16))
        channelTable.servers[spsm] = CreditBasedChannelTable.Server(continuation: continuation, admit: admit)
        l2cap.register(CreditBasedChannels.Server(spsm: spsm, limits: limits, maximumChannels: maximumChannelsPerLink))
        continuation.onTermination = { [weak self] _ in
            self?.startBackground { host in host.stopServing(spsm: spsm) }
        }
        return CreditBasedChannelListener(spsm: spsm, channels: stream, host: self)
    }

    /// Whether `spsm` is served by this host.
    public func isServingChannels(on spsm: UInt16) -> Bool { channelTable.servers[spsm] != nil }

    func stopServing(spsm: UInt16) {
        l2cap.unregister(spsm: spsm)
        channelTable.servers.removeValue(forKey: spsm)?.continuation.finish()
    }

    private func admitIncoming(_ request: IncomingChannelRequest, on handle: UInt16) {
        guard let server = channelTable.servers[request.spsm] else {
            carryChannelEvents(l2cap.channels(on: handle) { $0.refuse(request, result: .spsmNotSupported) } ?? [], on: handle)
            return
        }
        let admit = server.admit
        startBackground { host in
            let refusal = await admit(handle, request)
            let events: [CreditBasedChannels.Event] =
                host.l2cap.channels(on: handle) { channels -> [CreditBasedChannels.Event] in
                    if let refusal { return channels.refuse(request, result: refusal) }
                    return channels.accept(request)
                } ?? []
            host.carryChannelEvents(events, on: handle)
            await host.sendQueuedACL()
        }
    }

    // MARK: Data

    func sendOnChannel(_ key: ChannelKey, _ sdu: [UInt8]) async -> Result<Void, HCIError> {
        if let closed = closedChannelError(key) { return .failure(closed) }
        let id = newRequestID()
        let events: [CreditBasedChannels.Event]
        do {
            events = try l2cap.channels(on: key.handle) { channels throws(ChannelRequestError) in try channels.send(sdu, on: key.cid, id: id) } ?? []
        } catch {
            switch error {
            case .sduTooLong(let length, let peerMTU): return .failure(.unsupported("an SDU of \(length) bytes is longer than the peer's MTU (\(peerMTU))"))
            case .queueFull: return .failure(.busy("\(CreditBasedChannels.maximumQueuedSDUs) SDUs wait on the channel"))
            default: return .failure(closedChannelError(key) ?? .channelClosed(.closedLocally))
            }
        }
        carryChannelEvents(events, on: key.handle)
        await sendQueuedACL()
        if channelTable.finishedSDUs.remove(id) != nil { return .success(()) }
        return await withCheckedContinuation { continuation in
            if channelTable.finishedSDUs.remove(id) != nil {
                continuation.resume(returning: .success(()))
            } else if let closed = closedChannelError(key) {
                continuation.resume(returning: .failure(closed))
            } else {
                channelTable.entries[key]?.sends[id] = continuation
            }
        }
    }

    func receiveOnChannel(_ key: ChannelKey) async -> Result<[UInt8]?, HCIError> {
        guard var entry = channelTable.entries[key] else { return .success(nil) }
        if let sdu = entry.takeOldest() {
            channelTable.entries[key] = entry
            if entry.isClosed, entry.unread == 0 { channelTable.entries[key] = nil }
            consumed(key)
            return .success(sdu)
        }
        if entry.isClosed {
            channelTable.entries[key] = nil
            return .success(nil)
        }
        guard entry.reader == nil else { return .failure(.busy("one reader at a time on a channel")) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                } else {
                    channelTable.entries[key]?.reader = continuation
                }
            }
        } onCancel: {
            startBackground { host in host.cancelReader(key) }
        }
    }

    private func cancelReader(_ key: ChannelKey) {
        channelTable.entries[key]?.reader.take()?.resume(returning: .failure(.cancelled))
    }

    /// The reader took an SDU: the engine may give credits back.
    private func consumed(_ key: ChannelKey) {
        let events = l2cap.channels(on: key.handle) { $0.consumed(on: key.cid) } ?? []
        guard !events.isEmpty else { return }
        carryChannelEvents(events, on: key.handle)
        startBackground { host in await host.sendQueuedACL() }
    }

    func closeChannel(_ key: ChannelKey, forget: Bool) {
        let events = l2cap.channels(on: key.handle) { $0.disconnect(key.cid) } ?? []
        carryChannelEvents(events, on: key.handle)
        if forget { channelTable.entries[key] = nil }
        if !events.isEmpty { startBackground { host in await host.sendQueuedACL() } }
    }

    private func closedChannelError(_ key: ChannelKey) -> HCIError? {
        guard let entry = channelTable.entries[key] else { return .channelClosed(.closedLocally) }
        return entry.shared.state.withLock { $0.closeReason }.map { .channelClosed($0) }
    }

    // MARK: Timers

    private func armChannelRequestTimer(_ key: ChannelRequestKey, after delay: Duration) {
        cancelDeadline(channelTable.requestTimers[key])
        channelTable.requestTimers[key] = addDeadline(after: delay) { host in
            host.channelTable.requestTimers[key] = nil
            let events = host.l2cap.channels(on: key.handle) { $0.requestTimedOut(key.identifier) } ?? []
            host.carryChannelEvents(events, on: key.handle)
        }
    }

    // MARK: Carrying out

    /// Does what the engine of link `handle` returned, in order: queues K-frames and signaling
    /// commands for the controller (the caller then sends what is queued), resumes callers.
    func carryChannelEvents(_ events: [CreditBasedChannels.Event], on handle: UInt16) {
        for (index, event) in events.enumerated() {
            switch event {
            case let .signal(command):
                queueSignal(command, on: handle)
            case let .kFrame(destination, payload):
                var id: UInt64 = 0
                if index + 1 < events.count, case let .sent(cid, sdu) = events[index + 1] {
                    id = newRequestID()
                    channelTable.sduCompletions[id] = (ChannelKey(handle: handle, cid: cid), sdu)
                }
                queueL2CAP(handle: handle, cid: destination, sdu: payload, id: id)
            case .sent:
                break  // tied to its last K-frame above
            case let .incomingRequest(request):
                admitIncoming(request, on: handle)
            case let .opened(info):
                channelOpened(info, on: handle)
            case let .openFailed(request, failure):
                let key = ChannelRequestKey(handle: handle, identifier: request.identifier)
                cancelDeadline(channelTable.requestTimers.removeValue(forKey: key))
                let error: HCIError = failure == .linkLost ? .disconnected(reason: .unknownConnectionIdentifier) : .channelOpenFailed(failure)
                channelTable.opens.removeValue(forKey: key)?.continuation.resume(returning: .failure(error))
            case let .received(cid, sdu):
                channelReceived(sdu, on: ChannelKey(handle: handle, cid: cid))
            case let .closed(cid, reason):
                channelClosed(ChannelKey(handle: handle, cid: cid), reason: reason)
            case let .peerReconfigured(cid, mtu, mps):
                channelTable.entries[ChannelKey(handle: handle, cid: cid)]?.shared.state.withLock {
                    $0.peerMTU = mtu
                    $0.peerMPS = mps
                }
            case .reconfigured:
                break
            }
        }
    }

    /// Queues a signaling command: replies to the peer's requests count against the link's reply
    /// bound (a flooding peer gets some dropped, as for L2CAP's own replies); our requests arm
    /// their timer.
    private func queueSignal(_ command: SignalingCommand, on handle: UInt16) {
        let isResponse = LESignalingCode.responses.contains(command.code) && command.code != LESignalingCode.flowControlCredit
        guard isResponse else {
            if command.code == LESignalingCode.disconnectionRequest || command.code == LESignalingCode.creditBasedReconfigureRequest {
                armChannelRequestTimer(ChannelRequestKey(handle: handle, identifier: command.identifier), after: Self.channelSignalingTimeout)
            }
            queueL2CAP(handle: handle, cid: L2CAPFixedChannel.leSignaling, sdu: command.pdu, id: 0)
            return
        }
        switch l2cap.countChannelReply(command, handle: handle) {
        case let .reply(reply):
            let id = newRequestID()
            channelTable.replyPDUs[id] = reply
            queueL2CAP(handle: handle, cid: L2CAPFixedChannel.leSignaling, sdu: command.pdu, id: id)
        case let .replyDropped(_, _, waiting, firstOfFlood):
            droppedReplies += 1
            let metadata: Logger.Metadata = ["connection": "0x\(Hex.word(handle))", "waiting": "\(waiting)"]
            if firstOfFlood { logger.notice("dropping channel replies: the peer asks faster than the controller takes data", metadata: metadata) }
        default:
            break
        }
    }

    /// Queues an L2CAP PDU for the controller behind what waits already, without waiting;
    /// `id` (nonzero) is reported to ``channelPDUFinished(_:_:)`` when it has left or failed.
    private func queueL2CAP(handle: UInt16, cid: UInt16, sdu: [UInt8], id: UInt64) {
        guard connections[handle] != nil else { return }
        let maximum = controller?.aclDataLength ?? 27
        aclFlow.enqueue(OutboundPDU(id: id, handle: handle, fragments: fragmentL2CAP(cid: cid, sdu: sdu, handle: handle, maximumDataLength: maximum)))
    }

    /// A PDU queued by ``queueL2CAP(handle:cid:sdu:id:)`` left or failed; false when `id` is not one.
    func channelPDUFinished(_ id: UInt64, _ result: Result<Void, HCIError>) -> Bool {
        if let reply = channelTable.replyPDUs.removeValue(forKey: id) {
            l2cap.replyLeftQueue(reply)
            return true
        }
        guard let (key, sdu) = channelTable.sduCompletions.removeValue(forKey: id) else { return false }
        if let waiter = channelTable.entries[key]?.sends.removeValue(forKey: sdu) {
            waiter.resume(returning: result)
        } else if case .success = result {
            channelTable.finishedSDUs.insert(sdu)
        }
        return true
    }

    private func channelOpened(_ info: CreditBasedChannelInfo, on handle: UInt16) {
        let key = ChannelKey(handle: handle, cid: info.localCID)
        let shared = L2CAPCreditBasedChannel.Shared(peerMTU: info.peerMTU, peerMPS: info.peerMPS)
        channelTable.entries[key] = CreditBasedChannelTable.Entry(shared: shared)
        let channel = L2CAPCreditBasedChannel(handle: handle, info: info, shared: shared, host: self)
        if info.isIncoming {
            guard let server = channelTable.servers[info.spsm], case .enqueued = server.continuation.yield(channel) else {
                closeChannel(key, forget: true)
                return
            }
            return
        }
        guard let (requestKey, open) = channelTable.opens.first(where: { $0.key.handle == handle && $0.value.localCID == info.localCID }) else {
            closeChannel(key, forget: true)  // nobody waits for it any more
            return
        }
        channelTable.opens[requestKey] = nil
        cancelDeadline(channelTable.requestTimers.removeValue(forKey: requestKey))
        open.continuation.resume(returning: .success(channel))
    }

    private func channelReceived(_ sdu: [UInt8], on key: ChannelKey) {
        guard var entry = channelTable.entries[key] else { return }
        if let reader = entry.reader.take() {
            channelTable.entries[key] = entry
            reader.resume(returning: .success(sdu))
            consumed(key)
            return
        }
        entry.inbox.append(sdu)
        channelTable.entries[key] = entry
    }

    private func channelClosed(_ key: ChannelKey, reason: ChannelCloseReason) {
        guard var entry = channelTable.entries[key] else { return }
        entry.shared.state.withLock { $0.closeReason = $0.closeReason ?? reason }
        let sends = entry.sends
        entry.sends = [:]
        let reader = entry.reader.take()
        // Unread SDUs stay for the reader; a closed channel with none left is forgotten (its object
        // knows why it closed).
        channelTable.entries[key] = entry.unread == 0 ? nil : entry
        for (_, send) in sends { send.resume(returning: .failure(.channelClosed(reason))) }
        reader?.resume(returning: .success(nil))
    }

    /// The link `handle` ended: its channels were closed by the engine; forget their callers.
    func channelLinkClosed(_ handle: UInt16, reason: HCIStatus) {
        for key in channelTable.requestTimers.keys where key.handle == handle {
            cancelDeadline(channelTable.requestTimers.removeValue(forKey: key))
        }
        for (key, open) in channelTable.opens where key.handle == handle {
            channelTable.opens[key] = nil
            open.continuation.resume(returning: .failure(.disconnected(reason: reason)))
        }
    }
}
