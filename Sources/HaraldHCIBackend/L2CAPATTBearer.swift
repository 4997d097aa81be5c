import Foundation
import HaraldATT
import HaraldHCI

/// The ATT bearer of an LE connection: the fixed L2CAP channel 0x0004 of Harald's HCI host,
/// adapted to the GATT engines' ``ATTBearer``.
///
/// An engine that reads an ``ATTEventInbox`` (``deliverEvents(to:)``) gets the channel's SDUs
/// pushed into it by the host as it reassembles them: no stream and no task wake-up per PDU, and
/// notifications reach their subscribers on the host's thread. Otherwise ``events`` pulls them
/// from the channel's ``L2CAPFixedChannel/incoming`` stream.
final class L2CAPATTBearer: ATTInboxBearer {
    let events: AsyncStream<ATTBearerEvent>
    let localMTU: Int
    private let connection: LEConnection

    /// A bearer on `connection`'s ATT channel, receiving PDUs of up to `localMTU` bytes.
    init(connection: LEConnection, localMTU: Int = 517) {
        self.connection = connection
        self.localMTU = localMTU
        let reader = ChannelReader(connection: connection)
        // Pulled by the engine's own task: no pump task sits between the channel and the engine.
        // The reader touches the channel only when first pulled, so an engine using the inbox
        // instead leaves the channel free to push.
        events = AsyncStream(unfolding: { await reader.next() })
    }

    func deliverEvents(to inbox: ATTEventInbox) {
        let connection = connection
        let limit = connection.att.bufferSize
        let receiver = L2CAPChannelReceiver(
            receive: { sdu in inbox.yield(.received(sdu), limit: limit) },
            finish: {
                // The host fires the disconnection signal before it finishes the channel.
                inbox.yield(.closed(.linkLost(code: connection.disconnectReason?.rawValue)))
                inbox.finish()
            })
        if connection.att.deliverSDUs(to: receiver) { return }
        // Someone already reads the channel's stream: feed the inbox from the events stream.
        let events = events
        Task {
            for await event in events { inbox.yield(event) }
            inbox.finish()
        }
    }

    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= 517 else { throw .pduTooLong(size: pdu.count, limit: 517) }
        do { try await connection.att.send(pdu) } catch { throw .closed }
    }

    func close(_ reason: ATTCloseReason) async {
        // HCI Disconnect allows only a few reason codes; "remote user terminated connection" is the
        // one a host sends for every deliberate close, a transaction timeout included.
        _ = reason
        _ = try? await connection.disconnect(reason: .remoteUserTerminatedConnection)
    }

    func didNegotiateMTU(_ mtu: Int) async {
        connection.att.setMTU(mtu)
    }
}

/// Reads a channel's SDUs, then one close event.
private final class ChannelReader: @unchecked Sendable {
    // @unchecked Sendable: the bearer's events stream has exactly one consumer (the engine), and
    // `AsyncStream(unfolding:)` never calls `next()` concurrently, so `iterator` and `closed` are
    // only touched by one task at a time.
    private let connection: LEConnection
    private var iterator: AsyncStream<[UInt8]>.AsyncIterator?
    private var closed = false

    init(connection: LEConnection) {
        self.connection = connection
    }

    func next() async -> ATTBearerEvent? {
        if closed { return nil }
        if iterator == nil { iterator = connection.att.incoming.makeAsyncIterator() }
        if let sdu = await iterator?.next() { return .received(sdu) }
        closed = true
        let status = await connection.waitUntilDisconnected()
        return .closed(.linkLost(code: status?.rawValue))
    }
}
