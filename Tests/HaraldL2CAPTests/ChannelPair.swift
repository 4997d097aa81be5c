import HaraldL2CAP

/// Two credit-based engines joined back to back, as two hosts on one link: whatever one sends
/// (signaling commands, K-frames) the other receives at once. Incoming requests are accepted
/// unless `refusal` says otherwise; received SDUs are kept, and taken by the reader (credits given
/// back) only when `readsAtOnce` is set or ``read(_:on:)`` is called.
struct ChannelPair {
    enum Side { case central, peripheral }

    var central = CreditBasedChannels()
    var peripheral = CreditBasedChannels()
    /// Every event each side's engine returned, in order.
    var centralEvents: [CreditBasedChannels.Event] = []
    var peripheralEvents: [CreditBasedChannels.Event] = []
    /// SDUs each side received, per local CID, not yet read.
    var centralInbox: [UInt16: [[UInt8]]] = [:]
    var peripheralInbox: [UInt16: [[UInt8]]] = [:]
    var refusal: CreditBasedConnectionResult?
    var readsAtOnce = true
    /// Signaling commands each side sent, for counting.
    var centralSignals: [SignalingCommand] = []
    var peripheralSignals: [SignalingCommand] = []

    init(spsm: UInt16 = 0x0080, serverLimits: CreditBasedReceiveLimits = CreditBasedReceiveLimits()) {
        peripheral.register(CreditBasedChannels.Server(spsm: spsm, limits: serverLimits))
    }

    /// Carries `events` out for `side`: commands and K-frames to the other engine, and so on until
    /// nothing is left to carry.
    mutating func carry(_ events: [CreditBasedChannels.Event], from side: Side) {
        var queue: [(CreditBasedChannels.Event, Side)] = events.map { ($0, side) }
        while !queue.isEmpty {
            let (event, from) = queue.removeFirst()
            if from == .central { centralEvents.append(event) } else { peripheralEvents.append(event) }
            let to: Side = from == .central ? .peripheral : .central
            switch event {
            case let .signal(command):
                if from == .central { centralSignals.append(command) } else { peripheralSignals.append(command) }
                let answer = engine(to) { $0.receive(command) } ?? []
                queue += answer.map { ($0, to) }
            case let .kFrame(destination, payload):
                queue += engine(to) { $0.receiveKFrame(cid: destination, payload: payload) }.map { ($0, to) }
            case let .incomingRequest(request):
                let answer =
                    if let refusal { engine(from) { $0.refuse(request, result: refusal) } } else { engine(from) { $0.accept(request) } }
                queue += answer.map { ($0, from) }
            case let .received(cid, sdu):
                if from == .central { centralInbox[cid, default: []].append(sdu) } else { peripheralInbox[cid, default: []].append(sdu) }
                if readsAtOnce { queue += takeOne(on: cid, at: from).map { ($0, from) } }
            default:
                break
            }
        }
    }

    private mutating func engine<R, E: Error>(_ side: Side, _ body: (inout CreditBasedChannels) throws(E) -> R) throws(E) -> R {
        side == .central ? try body(&central) : try body(&peripheral)
    }

    private mutating func takeOne(on cid: UInt16, at side: Side) -> [CreditBasedChannels.Event] {
        engine(side) { $0.consumed(on: cid) }
    }

    /// The reader at `side` takes `count` SDUs from channel `cid`.
    mutating func read(_ count: Int, on cid: UInt16, at side: Side) {
        for _ in 0..<count { carry(takeOne(on: cid, at: side), from: side) }
    }

    /// The central opens one channel (or `count` in enhanced mode); returns the central's CIDs.
    mutating func open(
        spsm: UInt16 = 0x0080, mode: CreditBasedMode = .leCreditBased, count: Int = 1, limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits()
    ) throws -> [UInt16] {
        let (request, events) = try central.connect(spsm: spsm, mode: mode, count: count, limits: limits)
        carry(events, from: .central)
        return request.localCIDs.filter { central.channel($0) != nil }
    }

    /// The peripheral's CID of the central's channel `cid`.
    func peripheralCID(of cid: UInt16) -> UInt16? { central.channel(cid)?.remoteCID }

    mutating func send(_ sdu: [UInt8], on cid: UInt16, from side: Side, id: UInt64 = 0) throws {
        let events = try engine(side) { engine throws(ChannelRequestError) in try engine.send(sdu, on: cid, id: id) }
        carry(events, from: side)
    }

    func count(_ side: Side, where match: (CreditBasedChannels.Event) -> Bool) -> Int {
        (side == .central ? centralEvents : peripheralEvents).filter(match).count
    }
}

extension CreditBasedChannels.Event {
    var isKFrame: Bool { if case .kFrame = self { true } else { false } }
    var closeReason: ChannelCloseReason? { if case let .closed(_, reason) = self { reason } else { nil } }
    var openFailure: ChannelOpenFailure? { if case let .openFailed(_, failure) = self { failure } else { nil } }
    var creditGrant: FlowControlCreditIndication? {
        guard case let .signal(command) = self, command.code == LESignalingCode.flowControlCredit else { return nil }
        return try? FlowControlCreditIndication(decoding: command.data)
    }
    var signal: SignalingCommand? { if case let .signal(command) = self { command } else { nil } }
}
