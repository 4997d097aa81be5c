import HaraldATT
import HaraldCore
import HaraldHCI
import Logging

/// The ATT bearer of an LE connection: the fixed L2CAP channel 0x0004 of Harald's HCI host,
/// adapted to the GATT engines' ``ATTBearer``.
///
/// The channel's SDUs are pushed into an ``ATTEventInbox`` by the host as it reassembles them:
/// no stream and no task wake-up per PDU, and notifications reach their subscribers on the host's
/// thread. An engine that takes the inbox route (``deliverEvents(to:)``) reads its own inbox;
/// ``events`` is the same route with a private inbox behind a stream. The bearer installs itself
/// as the channel's only receiver the first time either is used, so it holds no reading state of
/// its own and needs no task.
final class L2CAPATTBearer: ATTInboxBearer {
    let localMTU: Int
    private let connection: LEConnection
    private let logger: Logger
    /// The stream ``events`` returns, made on first use.
    private let eventStream = Locked<AsyncStream<ATTBearerEvent>?>(nil)

    /// The host that reassembles the channel's SDUs and yields them, always on its executor.
    let deliveryDomain: (any Actor)?

    /// A bearer on `connection`'s ATT channel of `host`, receiving PDUs of up to `localMTU` bytes.
    init(connection: LEConnection, host: HCIHost, localMTU: Int = 517, logger: Logger) {
        self.connection = connection
        self.deliveryDomain = host
        self.localMTU = localMTU
        self.logger = logger
    }

    var events: AsyncStream<ATTBearerEvent> {
        eventStream.withLock { stream in
            if let stream { return stream }
            let inbox = ATTEventInbox()
            deliverEvents(to: inbox)
            let made = AsyncStream(unfolding: { await inbox.next() })
            stream = made
            return made
        }
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
        // The channel already has a reader (its `incoming` stream was taken, or a second engine
        // asked): this bearer can never see a PDU, so it is closed from the start rather than
        // left waiting forever.
        logger.error(
            "the ATT channel already has a reader; the bearer is closed",
            metadata: ["connection": "\(connection)"])
        inbox.yield(.closed(.linkLost(code: connection.disconnectReason?.rawValue)))
        inbox.finish()
    }

    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard pdu.count <= 517 else { throw .pduTooLong(size: pdu.count, limit: 517) }
        do { try await connection.att.send(pdu) } catch { throw .closed }
    }

    nonisolated(nonsending) func close(_ reason: ATTCloseReason) async {
        // HCI Disconnect allows only a few reason codes; "remote user terminated connection" is the
        // one a host sends for every deliberate close, a transaction timeout included.
        do {
            try await connection.disconnect(reason: .remoteUserTerminatedConnection)
        } catch {
            switch error {
            case .closed, .disconnected:
                break  // the link or the host is gone already: closed as asked
            default:
                // A transport failure has closed the host (and so the link) by now; a refused or
                // unanswered Disconnect leaves the link to the controller.
                logger.warning(
                    "HCI Disconnect failed while closing the ATT bearer",
                    metadata: ["connection": "\(connection)", "reason": "\(reason)", "error": "\(error)"])
            }
        }
    }

    nonisolated(nonsending) func didNegotiateMTU(_ mtu: Int) async {
        connection.att.setMTU(mtu)
    }
}
