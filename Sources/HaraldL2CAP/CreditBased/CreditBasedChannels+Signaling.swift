import HaraldCodec

// The signaling side of credit-based channels: the peer's requests (open, close, reconfigure)
// answered as Core spec Vol 3 Part A §4.22–4.28 says, and the peer's answers to ours.

/// A peer request waiting for the owner's answer, with the channels already refused by rule.
struct IncomingState: Sendable {
    var request: IncomingChannelRequest
    /// Per channel asked for: nil while acceptable, else why it is refused (enhanced mode).
    var refusals: [CreditBasedConnectionResult?]
}

extension CreditBasedChannels {
    /// Takes one command from the LE signaling channel. Returns nil for a command that is not
    /// about credit-based channels (a connection parameter update, a response to one of the
    /// owner's requests): the owner answers those.
    public mutating func receive(_ command: SignalingCommand) -> [Event]? {
        switch command.code {
        case LESignalingCode.leCreditBasedConnectionRequest:
            return receiveLEConnectionRequest(command)
        case LESignalingCode.creditBasedConnectionRequest:
            return receiveEnhancedConnectionRequest(command)
        case LESignalingCode.leCreditBasedConnectionResponse, LESignalingCode.creditBasedConnectionResponse:
            return receiveConnectionResponse(command)
        case LESignalingCode.flowControlCredit:
            guard let indication = try? FlowControlCreditIndication(decoding: command.data) else { return [] }
            return receiveCredits(indication)
        case LESignalingCode.disconnectionRequest:
            return receiveDisconnectionRequest(command)
        case LESignalingCode.disconnectionResponse:
            guard case let .disconnect(cid) = pending[command.identifier] else { return [] }
            pending[command.identifier] = nil
            channels[cid] = nil
            return []
        case LESignalingCode.creditBasedReconfigureRequest:
            return receiveReconfigureRequest(command)
        case LESignalingCode.creditBasedReconfigureResponse:
            return receiveReconfigureResponse(command)
        case LESignalingCode.commandReject:
            return receiveCommandReject(command)
        default:
            return nil
        }
    }

    // MARK: The peer's requests

    private func reject(_ command: SignalingCommand, reason: UInt16 = CommandReject.commandNotUnderstood, data: [UInt8] = []) -> [Event] {
        [.signal(SignalingCommand(code: LESignalingCode.commandReject, identifier: command.identifier, CommandReject(reason: reason, data: data)))]
    }

    private func remoteCIDInUse(_ cid: UInt16) -> Bool {
        channels.values.contains { $0.info.remoteCID == cid }
            || incoming.values.contains { $0.request.remoteCIDs.contains(cid) }
    }

    private func channelsOpen(to spsm: UInt16) -> Int {
        channels.values.filter { $0.info.spsm == spsm && $0.info.isIncoming }.count
    }

    private mutating func receiveLEConnectionRequest(_ command: SignalingCommand) -> [Event] {
        guard let request = try? LECreditBasedConnectionRequest(decoding: command.data) else { return reject(command) }
        func refuse(_ result: CreditBasedConnectionResult) -> [Event] {
            [
                .signal(
                    SignalingCommand(
                        code: LESignalingCode.leCreditBasedConnectionResponse, identifier: command.identifier,
                        LECreditBasedConnectionResponse.refusal(result)))
            ]
        }
        guard let server = servers[request.spsm] else { return refuse(.spsmNotSupported) }
        guard Self.dynamicCIDs.contains(request.sourceCID) else { return refuse(.invalidSourceCID) }
        guard !remoteCIDInUse(request.sourceCID) else { return refuse(.sourceCIDAlreadyAllocated) }
        guard request.mtu >= 23, (23...65_533).contains(request.mps) else { return refuse(.unacceptableParameters) }
        guard incoming.count < Self.maximumPendingIncomingRequests, incoming[command.identifier] == nil,
            channelsOpen(to: server.spsm) < server.maximumChannels, !freeLocalCIDs(1).isEmpty
        else { return refuse(.noResourcesAvailable) }
        let pendingRequest = IncomingChannelRequest(
            identifier: command.identifier, spsm: request.spsm, mode: .leCreditBased, remoteCIDs: [request.sourceCID],
            peerMTU: Int(request.mtu), peerMPS: Int(request.mps), initialCredits: Int(request.initialCredits))
        incoming[command.identifier] = IncomingState(request: pendingRequest, refusals: [nil])
        return [.incomingRequest(pendingRequest)]
    }

    private mutating func receiveEnhancedConnectionRequest(_ command: SignalingCommand) -> [Event] {
        guard let request = try? CreditBasedConnectionRequest(decoding: command.data) else { return reject(command) }
        func refuseAll(_ result: CreditBasedConnectionResult, limits: CreditBasedReceiveLimits? = nil) -> [Event] {
            let response = CreditBasedConnectionResponse(
                mtu: UInt16(limits?.mtu ?? 0), mps: UInt16(limits?.mps ?? 0), initialCredits: 0, result: result,
                destinationCIDs: [UInt16](repeating: 0, count: request.sourceCIDs.count))
            return [.signal(SignalingCommand(code: LESignalingCode.creditBasedConnectionResponse, identifier: command.identifier, response))]
        }
        guard let server = servers[request.spsm] else { return refuseAll(.spsmNotSupported) }
        guard request.mtu >= 64, request.mps >= 64, request.mps <= 65_533 else { return refuseAll(.invalidParameters, limits: server.limits) }
        guard incoming.count < Self.maximumPendingIncomingRequests, incoming[command.identifier] == nil else {
            return refuseAll(.noResourcesAvailable, limits: server.limits)
        }
        // Channel by channel: an invalid or taken source CID, or no room, refuses that one only.
        var refusals: [CreditBasedConnectionResult?] = []
        var room = min(server.maximumChannels - channelsOpen(to: server.spsm), freeLocalCIDs(5).count)
        var seen: Set<UInt16> = []
        for cid in request.sourceCIDs {
            if !Self.dynamicCIDs.contains(cid) {
                refusals.append(.invalidSourceCID)
            } else if remoteCIDInUse(cid) || !seen.insert(cid).inserted {
                refusals.append(.sourceCIDAlreadyAllocated)
            } else if room <= 0 {
                refusals.append(.noResourcesAvailable)
            } else {
                room -= 1
                refusals.append(nil)
            }
        }
        guard refusals.contains(where: { $0 == nil }) else { return refuseAll(refusals.compactMap { $0 }.first!, limits: server.limits) }
        let pendingRequest = IncomingChannelRequest(
            identifier: command.identifier, spsm: request.spsm, mode: .enhancedCreditBased,
            remoteCIDs: zip(request.sourceCIDs, refusals).compactMap { $1 == nil ? $0 : nil },
            peerMTU: Int(request.mtu), peerMPS: Int(request.mps), initialCredits: Int(request.initialCredits))
        incoming[command.identifier] = IncomingState(request: pendingRequest, refusals: refusals)
        return [.incomingRequest(pendingRequest)]
    }

    /// Accepts a peer's request (its security checked): opens its channels with the server's
    /// limits and answers.
    public mutating func accept(_ request: IncomingChannelRequest) -> [Event] {
        guard let state = incoming.removeValue(forKey: request.identifier) else { return [] }
        guard let server = servers[state.request.spsm] else { return answer(state, result: .spsmNotSupported) }
        let limits = server.limits
        let window = limits.window
        var cids = freeLocalCIDs(state.request.remoteCIDs.count)
        var events: [Event] = []
        var destinations: [UInt16] = []
        var refusals = state.refusals
        var remotes = state.request.remoteCIDs[...]
        for index in refusals.indices where refusals[index] == nil {
            let remote = remotes.removeFirst()
            guard !cids.isEmpty else {
                refusals[index] = .noResourcesAvailable
                continue
            }
            let cid = cids.removeFirst()
            var channel = ChannelState(
                info: CreditBasedChannelInfo(
                    localCID: cid, remoteCID: remote, spsm: state.request.spsm, mode: state.request.mode, mtu: limits.mtu, mps: limits.mps,
                    peerMTU: state.request.peerMTU, peerMPS: state.request.peerMPS, isIncoming: true),
                phase: .open, window: ReceiveWindow(window: window))
            channel.credits = ChannelCredits(initial: UInt16(min(state.request.initialCredits, ChannelCredits.maximum)))
            channels[cid] = channel
            events.append(.opened(channel.info))
            destinations.append(cid)
        }
        var allDestinations: [UInt16] = []
        var opened = destinations[...]
        for refusal in refusals { allDestinations.append(refusal == nil ? opened.removeFirst() : 0) }
        let result = refusals.compactMap { $0 }.first ?? .successful
        let command: SignalingCommand =
            state.request.mode == .leCreditBased
            ? SignalingCommand(
                code: LESignalingCode.leCreditBasedConnectionResponse, identifier: request.identifier,
                destinations.isEmpty
                    ? LECreditBasedConnectionResponse.refusal(result)
                    : LECreditBasedConnectionResponse(
                        destinationCID: destinations[0], mtu: UInt16(limits.mtu), mps: UInt16(limits.mps), initialCredits: UInt16(window),
                        result: .successful))
            : SignalingCommand(
                code: LESignalingCode.creditBasedConnectionResponse, identifier: request.identifier,
                CreditBasedConnectionResponse(
                    mtu: UInt16(limits.mtu), mps: UInt16(limits.mps), initialCredits: UInt16(window), result: result,
                    destinationCIDs: allDestinations))
        // The response goes before anything sent on the new channels.
        return [.signal(command)] + events
    }

    /// Refuses a peer's request with `result` (e.g. insufficient authentication for the SPSM).
    public mutating func refuse(_ request: IncomingChannelRequest, result: CreditBasedConnectionResult) -> [Event] {
        guard let state = incoming.removeValue(forKey: request.identifier) else { return [] }
        return answer(state, result: result)
    }

    private func answer(_ state: IncomingState, result: CreditBasedConnectionResult) -> [Event] {
        let command: SignalingCommand =
            state.request.mode == .leCreditBased
            ? SignalingCommand(
                code: LESignalingCode.leCreditBasedConnectionResponse, identifier: state.request.identifier,
                LECreditBasedConnectionResponse.refusal(result))
            : SignalingCommand(
                code: LESignalingCode.creditBasedConnectionResponse, identifier: state.request.identifier,
                CreditBasedConnectionResponse(
                    mtu: 0, mps: 0, initialCredits: 0, result: result,
                    destinationCIDs: [UInt16](repeating: 0, count: state.refusals.count)))
        return [.signal(command)]
    }

    private mutating func receiveDisconnectionRequest(_ command: SignalingCommand) -> [Event] {
        guard let request = try? DisconnectionCommand(decoding: command.data) else { return reject(command) }
        guard var channel = channels[request.destinationCID], channel.info.remoteCID == request.sourceCID,
            channel.phase == .open || { if case .disconnecting = channel.phase { true } else { false } }()
        else {
            // No such channel: the reject names the request's two identifiers, ours first.
            return reject(command, reason: CommandReject.invalidCIDInRequest, data: Array(command.data.prefix(4)))
        }
        let response = SignalingCommand(code: LESignalingCode.disconnectionResponse, identifier: command.identifier, request)
        var events: [Event] = [.signal(response)]
        if channel.phase == .open { events.append(.closed(cid: channel.info.localCID, .closedByPeer)) }
        if case let .disconnecting(identifier) = channel.phase { pending[identifier] = nil }
        channel.dropQueuedData()
        channels[request.destinationCID] = nil
        return events
    }

    private mutating func receiveReconfigureRequest(_ command: SignalingCommand) -> [Event] {
        guard let request = try? CreditBasedReconfigureRequest(decoding: command.data) else { return reject(command) }
        func answer(_ result: CreditBasedReconfigureResult) -> Event {
            .signal(SignalingCommand(code: LESignalingCode.creditBasedReconfigureResponse, identifier: command.identifier, result))
        }
        guard request.mtu >= 64, request.mps >= 64, request.mps <= 65_533 else { return [answer(.unacceptableParameters)] }
        var targets: [UInt16] = []
        for remote in request.cids {
            guard let channel = channels.values.first(where: { $0.info.remoteCID == remote && $0.phase == .open && $0.info.mode == .enhancedCreditBased })
            else { return [answer(.invalidDestinationCIDs)] }
            guard Int(request.mtu) >= channel.info.peerMTU else { return [answer(.mtuReductionNotAllowed)] }
            if Int(request.mps) < channel.info.peerMPS, request.cids.count > 1 { return [answer(.mpsReductionNotAllowed)] }
            targets.append(channel.info.localCID)
        }
        var events: [Event] = [answer(.successful)]
        for cid in targets {
            channels[cid]?.info.peerMTU = Int(request.mtu)
            channels[cid]?.info.peerMPS = Int(request.mps)
            // K-frames not sent yet were cut for the old MPS: a smaller one cuts them again.
            channels[cid]?.resegmentQueuedFrames(mps: Int(request.mps))
            events.append(.peerReconfigured(cid: cid, mtu: Int(request.mtu), mps: Int(request.mps)))
        }
        return events
    }

    /// Asks the peer to let us take SDUs up to `mtu` and K-frames up to `mps` on our enhanced
    /// channels `cids` (the MTU may only grow). Answered by ``Event/reconfigured(identifier:_:)``.
    public mutating func reconfigure(_ cids: [UInt16], mtu: Int, mps: Int) throws(ChannelRequestError) -> (UInt8, [Event]) {
        guard (1...CreditBasedConnectionRequest.maximumChannels).contains(cids.count) else { throw .invalidChannelCount(cids.count) }
        guard mtu >= 64, mps >= 64, mtu <= 65_535, mps <= 65_533 else { throw .limitsTooSmall(.enhancedCreditBased) }
        for cid in cids {
            guard let channel = channels[cid], channel.phase == .open, channel.info.mode == .enhancedCreditBased else { throw .notOpen }
        }
        guard let identifier = takeIdentifier() else { throw .noFreeIdentifier }
        pending[identifier] = .reconfigure(cids: cids, mtu: mtu, mps: mps)
        // The request names our own identifiers of the channels (the peer knows them as its
        // destinations).
        let request = CreditBasedReconfigureRequest(mtu: UInt16(mtu), mps: UInt16(mps), cids: cids)
        return (identifier, [.signal(SignalingCommand(code: LESignalingCode.creditBasedReconfigureRequest, identifier: identifier, request))])
    }

    private mutating func receiveReconfigureResponse(_ command: SignalingCommand) -> [Event] {
        guard case let .reconfigure(cids, mtu, mps) = pending[command.identifier] else { return [] }
        pending[command.identifier] = nil
        guard let result = try? CreditBasedReconfigureResult(decoding: command.data) else { return [.reconfigured(identifier: command.identifier, nil)] }
        if result == .successful {
            for cid in cids where channels[cid] != nil {
                channels[cid]?.info.mtu = mtu
                channels[cid]?.info.mps = mps
                channels[cid]?.reassembler.raiseLimits(mtu: mtu, mps: mps)
            }
        }
        return [.reconfigured(identifier: command.identifier, result)]
    }

    // MARK: The peer's answers to ours

    private mutating func receiveConnectionResponse(_ command: SignalingCommand) -> [Event] {
        guard case let .connect(outgoing, mode, _) = pending[command.identifier] else { return [] }
        let isLE = command.code == LESignalingCode.leCreditBasedConnectionResponse
        guard isLE == (mode == .leCreditBased) else { return [] }
        let destinations: [UInt16]
        let peerMTU: Int, peerMPS: Int, credits: UInt16, result: CreditBasedConnectionResult
        if isLE {
            guard let response = try? LECreditBasedConnectionResponse(decoding: command.data) else { return [] }
            (destinations, peerMTU, peerMPS, credits, result) = (
                [response.destinationCID], Int(response.mtu), Int(response.mps), response.initialCredits, response.result
            )
        } else {
            guard let response = try? CreditBasedConnectionResponse(decoding: command.data) else { return [] }
            // 0x000D–0x000F: pending (authentication, authorization); the final answer follows.
            if (0x000D...0x000F).contains(response.result.rawValue) { return [] }
            (destinations, peerMTU, peerMPS, credits, result) = (
                response.destinationCIDs, Int(response.mtu), Int(response.mps), response.initialCredits, response.result
            )
        }
        pending[command.identifier] = nil
        var events: [Event] = []
        var failed: [UInt16] = []
        let parametersValid = peerMTU >= mode.minimumMTU && (mode.minimumMTU...65_533).contains(peerMPS)
        for (index, cid) in outgoing.localCIDs.enumerated() {
            let destination = index < destinations.count ? destinations[index] : 0
            guard var channel = channels[cid], destination != 0, result == .successful || !isLE else {
                channels[cid] = nil
                failed.append(cid)
                continue
            }
            // The peer's identifier must name no other channel of this link (one it opened to us,
            // or another of this answer's): K-frames and credits are routed by it.
            if channels.values.contains(where: { $0.info.remoteCID == destination && $0.info.localCID != cid }) {
                channels[cid] = nil
                events.append(.openFailed(OutgoingChannelRequest(identifier: command.identifier, localCIDs: [cid]), .invalidResponse))
                continue
            }
            guard parametersValid, Self.dynamicCIDs.contains(destination) else {
                // Opened by the peer with values the mode forbids: close it at once.
                channel.info.remoteCID = destination
                channel.phase = .open
                events += closeOpenChannel(&channel, reason: .protocolViolation(.invalidParameters))
                events.removeAll { if case .closed = $0 { true } else { false } }
                events.append(.openFailed(OutgoingChannelRequest(identifier: command.identifier, localCIDs: [cid]), .invalidResponse))
                continue
            }
            let abandoned = if case .connectingAbandoned = channel.phase { true } else { false }
            channel.info.remoteCID = destination
            channel.info.peerMTU = peerMTU
            channel.info.peerMPS = peerMPS
            channel.credits = ChannelCredits(initial: credits)
            channel.phase = .open
            channels[cid] = channel
            if abandoned {
                events += closeOpenChannel(&channel, reason: .closedLocally).filter { if case .closed = $0 { false } else { true } }
            } else {
                events.append(.opened(channel.info))
            }
        }
        if !failed.isEmpty {
            let failure: ChannelOpenFailure = .refused(result == .successful ? .noResourcesAvailable : result)
            events.append(.openFailed(OutgoingChannelRequest(identifier: command.identifier, localCIDs: failed), failure))
        }
        return events
    }

    private mutating func receiveCommandReject(_ command: SignalingCommand) -> [Event]? {
        guard let request = pending[command.identifier] else { return [] }
        let reason = (try? CommandReject(decoding: command.data))?.reason ?? CommandReject.commandNotUnderstood
        switch request {
        case .external:
            return nil
        case let .connect(outgoing, _, _):
            pending[command.identifier] = nil
            for cid in outgoing.localCIDs { channels[cid] = nil }
            return [.openFailed(outgoing, .commandRejected(reason: reason))]
        case let .disconnect(cid):
            pending[command.identifier] = nil
            channels[cid] = nil
            return []
        case .reconfigure:
            pending[command.identifier] = nil
            return [.reconfigured(identifier: command.identifier, nil)]
        }
    }
}
