import HaraldCore

/// Splits one ATT bearer into a client side and a server side, for a device that is GATT client
/// and GATT server on the same link (a central that also serves its GAP service, say).
///
/// Inbound PDUs are routed by opcode: responses, notifications and indications to ``client``;
/// requests, commands, confirmations and unknown opcodes to ``server`` (which answers unknown
/// requests and ignores unknown commands). Both sides send on the shared bearer. When one side
/// settles the ATT_MTU through Exchange MTU, the other side gets ``ATTBearerEvent/mtuChanged(_:)``.
/// Closing either side closes the shared bearer; both sides then get `.closed`. The router and
/// both sides start their tasks with the shared bearer's ``ATTBearer/taskStarter``.
///
/// The new ATT_MTU holds from the Exchange MTU Response on (Core Vol 3 Part F §3.4.2.2), and the
/// peer may send the server a request of the new size right behind its response to the client.
/// So the router itself settles the MTU when it routes that response: the server side gets
/// `.mtuChanged` before any PDU that came after it.
public final class ATTDualRoleBearer: Sendable {
    /// Events each side holds for an engine that falls behind; later PDUs are dropped, as a
    /// full ATT channel drops them (a request lost that way times out and closes the bearer).
    public static let bufferLimit = 4096

    /// The bearer to give a ``GATTClient``.
    public let client: ATTRoleBearer
    /// The bearer to give a ``GATTServer``.
    public let server: ATTRoleBearer

    /// Wraps `bearer`, splitting its PDUs between a client and a server on the same link.
    public init(_ bearer: any ATTBearer) {
        let (clientEvents, clientSink) = AsyncStream<ATTBearerEvent>.makeStream(bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        let (serverEvents, serverSink) = AsyncStream<ATTBearerEvent>.makeStream(bufferingPolicy: .bufferingOldest(Self.bufferLimit))
        // The Client Rx MTU of the client's Exchange MTU Request on the way, if any.
        let offeredMTU = Locked<Int?>(nil)
        client = ATTRoleBearer(shared: bearer, events: clientEvents, otherSide: serverSink, offeredMTU: offeredMTU)
        server = ATTRoleBearer(shared: bearer, events: serverEvents, otherSide: clientSink, offeredMTU: nil)
        let events = bearer.events
        bearer.taskStarter.start {
            for await event in events {
                switch event {
                case .received(let bytes):
                    let kind = bytes.first.map { ATTOpcode($0).kind } ?? .unknown
                    if bytes.count == 3, bytes[0] == ATTOpcode.exchangeMTUResponse.rawValue,
                        let offered = offeredMTU.withLock({ offer in
                            defer { offer = nil }; return offer
                        })
                    {
                        let serverRxMTU = Int(bytes[1]) | Int(bytes[2]) << 8
                        serverSink.yield(.mtuChanged(max(ATT.defaultMTU, min(offered, serverRxMTU))))
                    }
                    switch kind {
                    case .response, .notification, .indication: clientSink.yield(event)
                    case .request, .command, .confirmation, .unknown: serverSink.yield(event)
                    }
                case .closed:
                    clientSink.yield(event)
                    serverSink.yield(event)
                case .mtuChanged:
                    clientSink.yield(event)
                    serverSink.yield(event)
                }
            }
            clientSink.finish()
            serverSink.finish()
        }
    }
}

/// One role's view of a shared bearer (see ``ATTDualRoleBearer``).
public final class ATTRoleBearer: ATTBearer {
    public let events: AsyncStream<ATTBearerEvent>
    private let shared: any ATTBearer
    private let otherSide: AsyncStream<ATTBearerEvent>.Continuation
    /// The client side notes here the MTU its Exchange MTU Request offers (nil on the server side).
    private let offeredMTU: Locked<Int?>?

    init(
        shared: any ATTBearer, events: AsyncStream<ATTBearerEvent>, otherSide: AsyncStream<ATTBearerEvent>.Continuation,
        offeredMTU: Locked<Int?>?
    ) {
        self.shared = shared
        self.events = events
        self.otherSide = otherSide
        self.offeredMTU = offeredMTU
    }

    public var localMTU: Int { shared.localMTU }

    public var taskStarter: TaskStarter { shared.taskStarter }

    nonisolated(nonsending) public func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        if let offeredMTU, pdu.count == 3, pdu[0] == ATTOpcode.exchangeMTURequest.rawValue {
            offeredMTU.withLock { $0 = Int(pdu[1]) | Int(pdu[2]) << 8 }
        }
        try await shared.send(pdu)
    }

    nonisolated(nonsending) public func close(_ reason: ATTCloseReason) async {
        await shared.close(reason)
    }

    nonisolated(nonsending) public func didNegotiateMTU(_ mtu: Int) async {
        otherSide.yield(.mtuChanged(mtu))
        await shared.didNegotiateMTU(mtu)
    }
}
