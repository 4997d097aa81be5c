import DequeModule
import Harald
import HaraldCore
import HaraldL2CAP

/// One side's connection-oriented channels on a ``SimulatedLink``: Harald's credit-based engine
/// (`CreditBasedChannels`, the rules the HCI host runs too) with its signaling commands and
/// K-frames carried by the link in its connection events, so a channel's throughput is what the
/// link model allows and its credits and MPS are the engine's.
///
/// The link pushes frames under its lock, so they are handed to this actor through a stream and
/// taken in order by one task; what the engine sends goes out in order from one pump, waiting for
/// the link's transmit buffer as any sender does.
actor SimulatedChannelEndpoint {
    /// One channel's callers and unread SDUs.
    struct Entry {
        let channel: SimulatedChannel
        var inbox = Deque<[UInt8]>()
        var reader: CheckedContinuation<Result<[UInt8]?, BluetoothError>, Never>?
        var sends: [UInt64: CheckedContinuation<Result<Void, BluetoothError>, Never>] = [:]
    }

    /// A frame waiting for the link, and the SDU whose last K-frame it is.
    private struct Outbound {
        let cid: UInt16
        let bytes: [UInt8]
        let completes: (cid: UInt16, sdu: UInt64)?
    }

    let link: SimulatedLink
    let side: LinkSide
    private let clock: VirtualClock
    private var engine = CreditBasedChannels()
    private var entries: [UInt16: Entry] = [:]
    private var opens: [UInt8: (continuation: CheckedContinuation<Result<SimulatedChannel, BluetoothError>, Never>, timer: Task<Void, Never>)] = [:]
    /// Our CID each open of ours waits on → its signaling identifier.
    private var openByCID: [UInt16: UInt8] = [:]
    private var outbound = Deque<Outbound>()
    private var pumping = false
    private var finishedSDUs: Set<UInt64> = []
    private var nextSDU: UInt64 = 1
    /// Decides a peer's request to open channels on a served SPSM: nil accepts.
    private var admission: (@Sendable (IncomingChannelRequest) async -> CreditBasedConnectionResult?)?
    /// Where channels the peer opened go (nil: closed at once).
    private var incoming: (@Sendable (SimulatedChannel) -> Void)?
    /// Frames of the peer, handed over by the link.
    private let frames: AsyncStream<SimulatedLink.ChannelFrame>.Continuation

    /// The endpoint of `side` on `link`; it takes the link's channel frames from now on.
    init(link: SimulatedLink, side: LinkSide) {
        self.link = link
        self.side = side
        clock = link.clock
        let (stream, continuation) = AsyncStream.makeStream(of: SimulatedLink.ChannelFrame.self)
        frames = continuation
        link.channelFrames(on: side) { frame in continuation.yield(frame) }
        link.clock.taskStarter.start { [weak self] in
            for await frame in stream {
                guard let self else { return }
                await self.take(frame)
            }
        }
    }

    /// Serves channels: `servers` are registered with the engine, `admission` decides each request
    /// (the link's security), `incoming` gets each channel opened.
    func serve(
        _ servers: [CreditBasedChannels.Server], admission: @escaping @Sendable (IncomingChannelRequest) async -> CreditBasedConnectionResult?,
        incoming: @escaping @Sendable (SimulatedChannel) -> Void
    ) {
        for server in servers { engine.register(server) }
        self.admission = admission
        self.incoming = incoming
    }

    /// Serves one more SPSM (a definition served while centrals are connected).
    func register(_ server: CreditBasedChannels.Server) { engine.register(server) }

    // MARK: Opening

    func open(spsm: UInt16, mode: CreditBasedMode, limits: CreditBasedReceiveLimits, timeout: Duration) async throws(BluetoothError) -> SimulatedChannel {
        let request: OutgoingChannelRequest
        let events: [CreditBasedChannels.Event]
        do {
            (request, events) = try engine.connect(spsm: spsm, mode: mode, limits: limits)
        } catch {
            throw .misuse("opening a channel: \(error)")
        }
        let identifier = request.identifier
        for cid in request.localCIDs { openByCID[cid] = identifier }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<SimulatedChannel, BluetoothError>, Never>) in
            let clock = clock
            let timer = clock.taskStarter.start { [weak self] in
                do { try await clock.sleep(for: timeout) } catch { return }
                await self?.openTimedOut(identifier, after: timeout)
            }
            opens[identifier] = (continuation, timer)
            carry(events)
        }
        return try result.get()
    }

    private func openTimedOut(_ identifier: UInt8, after timeout: Duration) {
        guard let open = opens.removeValue(forKey: identifier) else { return }
        openByCID = openByCID.filter { $0.value != identifier }
        _ = engine.requestTimedOut(identifier)
        open.continuation.resume(returning: .failure(.timeout(operation: "opening an L2CAP channel", after: timeout)))
    }

    // MARK: Data

    func send(_ sdu: [UInt8], on cid: UInt16) async -> Result<Void, BluetoothError> {
        guard let entry = entries[cid] else { return .failure(.channelClosed(.localRequest)) }
        if let reason = entry.channel.closeReason { return .failure(.channelClosed(reason)) }
        let id = nextSDU
        nextSDU += 1
        do {
            carry(try engine.send(sdu, on: cid, id: id))
        } catch {
            switch error {
            case let .sduTooLong(length, peerMTU): return .failure(.misuse("an SDU of \(length) bytes is longer than the peer's MTU (\(peerMTU))"))
            case .queueFull: return .failure(.misuse("\(CreditBasedChannels.maximumQueuedSDUs) SDUs wait on the channel"))
            default: return .failure(.channelClosed(entry.channel.closeReason ?? .localRequest))
            }
        }
        if finishedSDUs.remove(id) != nil { return .success(()) }
        return await withCheckedContinuation { continuation in
            if finishedSDUs.remove(id) != nil {
                continuation.resume(returning: .success(()))
            } else if let reason = entries[cid]?.channel.closeReason {
                continuation.resume(returning: .failure(.channelClosed(reason)))
            } else {
                entries[cid]?.sends[id] = continuation
            }
        }
    }

    func receive(on cid: UInt16) async -> Result<[UInt8]?, BluetoothError> {
        guard var entry = entries[cid] else { return .success(nil) }
        if let sdu = entry.inbox.popFirst() {
            entries[cid] = entry
            carry(engine.consumed(on: cid))
            if entry.channel.closeReason != nil, entry.inbox.isEmpty { entries[cid] = nil }
            return .success(sdu)
        }
        if entry.channel.closeReason != nil {
            entries[cid] = nil
            return .success(nil)
        }
        guard entry.reader == nil else { return .failure(.misuse("two loops read one L2CAP channel at once")) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                } else {
                    entries[cid]?.reader = continuation
                }
            }
        } onCancel: {
            clock.taskStarter.start { await self.cancelReader(cid) }
        }
    }

    private func cancelReader(_ cid: UInt16) {
        entries[cid]?.reader.take()?.resume(returning: .failure(.cancelled))
    }

    func close(_ cid: UInt16) {
        carry(engine.disconnect(cid))
    }

    /// Sends bytes on a channel as they are, bypassing the engine's rules (a misbehaving peer's
    /// K-frames and signaling).
    func sendRaw(_ bytes: [UInt8], cid: UInt16) {
        outbound.append(Outbound(cid: cid, bytes: bytes, completes: nil))
        startPump()
    }

    // MARK: From the link

    private func take(_ frame: SimulatedLink.ChannelFrame) async {
        switch frame {
        case .closed:
            carry(engine.linkClosed())
            for (_, open) in opens {
                open.timer.cancel()
                open.continuation.resume(returning: .failure(.disconnected(.connectionLost)))
            }
            opens = [:]
            openByCID = [:]
            frames.finish()
        case let .frame(cid, bytes) where cid == 0x0005:
            guard let command = try? SignalingCommand(pdu: bytes), let events = engine.receive(command) else { return }
            carry(events)
        case let .frame(cid, bytes):
            carry(engine.receiveKFrame(cid: cid, payload: bytes))
        }
    }

    // MARK: Carrying out

    private func carry(_ events: [CreditBasedChannels.Event]) {
        for (index, event) in events.enumerated() {
            switch event {
            case let .signal(command):
                outbound.append(Outbound(cid: 0x0005, bytes: command.pdu, completes: nil))
            case let .kFrame(destination, payload):
                var completes: (UInt16, UInt64)?
                if index + 1 < events.count, case let .sent(cid, sdu) = events[index + 1] { completes = (cid, sdu) }
                outbound.append(Outbound(cid: destination, bytes: payload, completes: completes))
            case .sent, .peerReconfigured, .reconfigured:
                break
            case let .incomingRequest(request):
                guard let admission else {
                    carry(engine.refuse(request, result: .spsmNotSupported))
                    break
                }
                clock.taskStarter.start { [weak self] in
                    let refusal = await admission(request)
                    await self?.answer(request, refusal: refusal)
                }
            case let .opened(info):
                opened(info)
            case let .openFailed(request, failure):
                for cid in request.localCIDs { openByCID[cid] = nil }
                guard let open = opens.removeValue(forKey: request.identifier) else { break }
                open.timer.cancel()
                open.continuation.resume(returning: .failure(Self.error(failure)))
            case let .received(cid, sdu):
                guard var entry = entries[cid] else { break }
                if let reader = entry.reader.take() {
                    entries[cid] = entry
                    reader.resume(returning: .success(sdu))
                    carry(engine.consumed(on: cid))
                } else {
                    entry.inbox.append(sdu)
                    entries[cid] = entry
                }
            case let .closed(cid, reason):
                closed(cid, reason: SimulatedChannel.reason(reason))
            }
        }
        startPump()
    }

    private func answer(_ request: IncomingChannelRequest, refusal: CreditBasedConnectionResult?) {
        carry(refusal.map { engine.refuse(request, result: $0) } ?? engine.accept(request))
    }

    private func opened(_ info: CreditBasedChannelInfo) {
        let channel = SimulatedChannel(endpoint: self, info: info)
        entries[info.localCID] = Entry(channel: channel)
        if info.isIncoming {
            guard let incoming else {
                close(info.localCID)
                return
            }
            incoming(channel)
            return
        }
        guard let identifier = openByCID.removeValue(forKey: info.localCID), let open = opens.removeValue(forKey: identifier) else {
            close(info.localCID)  // nobody waits for it any more
            return
        }
        open.timer.cancel()
        open.continuation.resume(returning: .success(channel))
    }

    private func closed(_ cid: UInt16, reason: L2CAPChannelCloseReason) {
        guard var entry = entries[cid] else { return }
        entry.channel.markClosed(reason)
        let sends = entry.sends
        entry.sends = [:]
        let reader = entry.reader.take()
        entries[cid] = entry.inbox.isEmpty ? nil : entry
        for (_, send) in sends { send.resume(returning: .failure(.channelClosed(reason))) }
        reader?.resume(returning: .success(nil))
    }

    private func startPump() {
        guard !pumping, !outbound.isEmpty else { return }
        pumping = true
        clock.taskStarter.start { [weak self] in await self?.pump() }
    }

    /// Hands the queued frames to the link in order, waiting for its transmit buffer.
    private func pump() async {
        defer { pumping = false }
        while let next = outbound.popFirst() {
            do {
                try await link.send(next.bytes, from: side, cid: next.cid)
            } catch {
                outbound.removeAll()
                return
            }
            guard let (cid, sdu) = next.completes else { continue }
            if let waiter = entries[cid]?.sends.removeValue(forKey: sdu) {
                waiter.resume(returning: .success(()))
            } else {
                finishedSDUs.insert(sdu)
            }
        }
    }

    static func error(_ failure: ChannelOpenFailure) -> BluetoothError {
        switch failure {
        case let .refused(result): .channelRefused(L2CAPChannelRefusal(rawValue: result.rawValue))
        case .commandRejected: .unsupported("credit-based channels on this peer (it rejected the request)")
        case .invalidResponse: .protocolViolation("the peer opened the channel with parameters the mode forbids")
        case .timedOut: .timeout(operation: "opening an L2CAP channel", after: .zero)
        case .linkLost: .disconnected(.connectionLost)
        }
    }
}
