import HaraldCodec
import HaraldL2CAP

/// L2CAP's credit-based channels (HaraldL2CAP): the signaling commands as values, and the engine
/// of one link fed a random interleaving of a peer's signaling commands and K-frames with its own
/// user's calls.
let l2capChannelTargets: [FuzzTarget] = [
    FuzzTarget("L2CAP.SignalingCommand", checkSignalingCommand),
    FuzzTarget("L2CAP.CreditBasedChannels", runCreditBasedChannels),
]

/// A signaling PDU that parses writes back to the same bytes; every credit-based command in it
/// that decodes encodes back to its data.
@Sendable func checkSignalingCommand(_ bytes: [UInt8]) {
    guard let command = try? SignalingCommand(pdu: bytes) else { return }
    require(command.pdu == bytes, "signaling PDU \(bytes.hexString) writes back as \(command.pdu.hexString)")
    func roundTrip<T: ByteCodable & Equatable>(_ type: T.Type) {
        guard let value = try? T(decoding: command.data) else { return }
        require((try? T(decoding: (try? value.encodedBytes()) ?? [])) == value, "\(T.self) from \(command.data.hexString) does not round-trip")
    }
    switch command.code {
    case LESignalingCode.leCreditBasedConnectionRequest: roundTrip(LECreditBasedConnectionRequest.self)
    case LESignalingCode.leCreditBasedConnectionResponse: roundTrip(LECreditBasedConnectionResponse.self)
    case LESignalingCode.flowControlCredit: roundTrip(FlowControlCreditIndication.self)
    case LESignalingCode.creditBasedConnectionRequest: roundTrip(CreditBasedConnectionRequest.self)
    case LESignalingCode.creditBasedConnectionResponse: roundTrip(CreditBasedConnectionResponse.self)
    case LESignalingCode.creditBasedReconfigureRequest: roundTrip(CreditBasedReconfigureRequest.self)
    case LESignalingCode.creditBasedReconfigureResponse: roundTrip(CreditBasedReconfigureResult.self)
    case LESignalingCode.disconnectionRequest, LESignalingCode.disconnectionResponse: roundTrip(DisconnectionCommand.self)
    case LESignalingCode.commandReject: roundTrip(CommandReject.self)
    default: break
    }
}

/// The engine of one link, serving SPSM 0x0080, driven by the input: each step is a header byte
/// (its low 3 bits choose the step) and the bytes it reads.
/// - 0: a signaling command from the peer — code (one of the LE codes, by the next byte), identifier,
///   a length byte and that many data bytes;
/// - 1: a K-frame from the peer on channel 0x40 + (next byte mod 8), a length byte and its payload;
/// - 2: the user opens a channel (next byte: bit 0 enhanced mode, bits 1-3 the count);
/// - 3: the user sends an SDU (two bytes: channel, length) of that many bytes;
/// - 4: the user reads an SDU on a channel (credits may go back);
/// - 5: the user closes a channel;
/// - 6: a request of ours times out (next byte: its identifier);
/// - 7: the oldest peer request is accepted (or refused, by the next byte's bit 0).
/// What must hold after every step (Core spec Vol 3 Part A §4, §10.1):
/// - every command the engine sends parses and stays within the LE signaling MTU of 23 bytes… or
///   at most the size of the largest command (an enhanced response with five CIDs);
/// - no K-frame is longer than the peer's MPS of its channel, and no channel ever sends more K-frames
///   than the credits the peer gave it (initial credits plus the grants this input sent);
/// - no SDU handed up is longer than our MTU;
/// - a channel's K-frames held plus the peer's credits never exceed its window;
/// - at most 64 channels, and the peer's pending requests stay bounded.
@Sendable func runCreditBasedChannels(_ bytes: [UInt8]) {
    var engine = CreditBasedChannels()
    engine.register(CreditBasedChannels.Server(spsm: 0x80, limits: CreditBasedReceiveLimits(mtu: 100, mps: 30, bufferCapacity: 300)))
    let limits = CreditBasedReceiveLimits(mtu: 120, mps: 64, bufferCapacity: 512)
    var input = bytes[...]
    func next() -> UInt8 { input.popFirst() ?? 0 }
    var incoming: [IncomingChannelRequest] = []
    /// Per our CID: credits the peer gave (initial + grants) and K-frames sent.
    var given: [UInt16: Int] = [:]
    var sent: [UInt16: Int] = [:]
    var sdu: UInt64 = 0
    let codes: [UInt8] = [0x01, 0x06, 0x07, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x12, 0x13, 0x1F]

    func check(_ events: [CreditBasedChannels.Event]) {
        for event in events {
            switch event {
            case let .signal(command):
                require((try? SignalingCommand(pdu: command.pdu)) == command, "a command the engine sent does not parse: \(command.pdu.hexString)")
                require(command.pdu.count <= 4 + 8 + 10, "a command of \(command.pdu.count) bytes")
            case let .kFrame(destination, payload):
                guard let cid = (CreditBasedChannels.dynamicCIDs).first(where: { engine.channel($0)?.remoteCID == destination }) else {
                    // A channel closed meanwhile cannot send: the frame must belong to an open one.
                    require(false, "a K-frame to 0x\(Hex.word(destination)), no open channel's peer")
                    return
                }
                require(payload.count <= engine.channel(cid)!.peerMPS, "a K-frame of \(payload.count) bytes over the peer's MPS")
                sent[cid, default: 0] += 1
                require(sent[cid, default: 0] <= given[cid, default: 0], "channel 0x\(Hex.word(cid)) sent more K-frames than its credits")
            case let .incomingRequest(request):
                incoming.append(request)
            case let .opened(info):
                if given[info.localCID] == nil { given[info.localCID] = engine.sendCredits(on: info.localCID) }
                sent[info.localCID] = 0
            case let .received(cid, payload):
                require(payload.count <= (engine.channel(cid)?.mtu ?? 120), "an SDU of \(payload.count) bytes over our MTU")
            default:
                break
            }
        }
    }

    while !input.isEmpty {
        let header = next()
        var events: [CreditBasedChannels.Event] = []
        switch header & 7 {
        case 0:
            let code = codes[Int(next()) % codes.count]
            let identifier = next()
            let data = (0..<Int(next() % 24)).map { _ in next() }
            let command = SignalingCommand(code: code, identifier: identifier, data: data)
            // Credits the peer gives a channel of ours, counted before the engine takes them.
            if code == LESignalingCode.flowControlCredit, let indication = try? FlowControlCreditIndication(decoding: data),
                let cid = CreditBasedChannels.dynamicCIDs.first(where: { engine.channel($0)?.remoteCID == indication.cid })
            {
                given[cid, default: 0] += Int(indication.credits)
            }
            let before = Set(CreditBasedChannels.dynamicCIDs.filter { engine.channel($0) != nil })
            events = engine.receive(command) ?? []
            // Initial credits of channels our request opened come in the response.
            for cid in CreditBasedChannels.dynamicCIDs where engine.channel(cid) != nil && !before.contains(cid) {
                given[cid] = engine.sendCredits(on: cid)
            }
        case 1:
            let cid = 0x40 + UInt16(next() % 8)
            let payload = (0..<Int(next() % 80)).map { _ in next() }
            events = engine.receiveKFrame(cid: cid, payload: payload)
        case 2:
            let flags = next()
            let mode: CreditBasedMode = flags & 1 == 1 ? .enhancedCreditBased : .leCreditBased
            events = (try? engine.connect(spsm: 0x80, mode: mode, count: mode == .leCreditBased ? 1 : Int(1 + (flags >> 1) % 5), limits: limits))?.1 ?? []
        case 3:
            let cid = 0x40 + UInt16(next() % 8)
            let length = Int(next())
            sdu += 1
            events = (try? engine.send([UInt8](repeating: 0xA5, count: length), on: cid, id: sdu)) ?? []
        case 4:
            events = engine.consumed(on: 0x40 + UInt16(next() % 8))
        case 5:
            events = engine.disconnect(0x40 + UInt16(next() % 8))
        case 6:
            events = engine.requestTimedOut(next())
        default:
            guard !incoming.isEmpty else { continue }
            let request = incoming.removeFirst()
            let refuse = next() & 1 == 1
            let before = Set(CreditBasedChannels.dynamicCIDs.filter { engine.channel($0) != nil })
            events = refuse ? engine.refuse(request, result: .insufficientAuthentication) : engine.accept(request)
            for cid in CreditBasedChannels.dynamicCIDs where engine.channel(cid) != nil && !before.contains(cid) {
                given[cid] = engine.sendCredits(on: cid)
            }
        }
        check(events)
        require(engine.openChannelCount <= 64, "\(engine.openChannelCount) channels")
        require(incoming.count <= CreditBasedChannels.maximumPendingIncomingRequests + 64, "\(incoming.count) pending peer requests")
        for cid in CreditBasedChannels.dynamicCIDs {
            guard let window = engine.receiveWindow(on: cid) else { continue }
            require(window.heldFrames + window.peerCredits <= window.window, "channel 0x\(Hex.word(cid)) holds more than its window")
        }
    }
}
