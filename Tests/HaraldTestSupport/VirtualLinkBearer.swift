import HaraldATT

/// The peripheral's end of one link of a ``VirtualController``: the ATT bearer its GATT server
/// reads. PDUs from the central arrive on ``events`` as the controller reassembles them from
/// the host's ACL data; PDUs the server sends go back to the host as ACL data on CID 0x0004.
final class VirtualLinkBearer: ATTBearer {
    let events: AsyncStream<ATTBearerEvent>
    let localMTU = 517
    let handle: UInt16
    private let input: AsyncStream<ATTBearerEvent>.Continuation
    /// Weak: the controller owns its links, not the other way round.
    private weak let controller: VirtualController?

    init(handle: UInt16, controller: VirtualController) {
        self.handle = handle
        self.controller = controller
        (events, input) = AsyncStream.makeStream(of: ATTBearerEvent.self)
    }

    /// A PDU from the central.
    func deliver(_ pdu: [UInt8]) { input.yield(.received(pdu)) }

    /// The link is gone: the server gets `reason`, then nothing more.
    func end(_ reason: ATTCloseReason) {
        input.yield(.closed(reason))
        input.finish()
    }

    nonisolated(nonsending) func send(_ pdu: [UInt8]) async throws(ATTBearerError) {
        guard let controller else { throw .closed }
        try controller.sendFromPeripheral(pdu, handle: handle)
    }

    /// The peripheral closes the link (Remote User Terminated Connection, as the central sees it).
    func close(_ reason: ATTCloseReason) async {
        controller?.endLink(handle: handle, reason: .remoteUserTerminatedConnection)
    }

    func didNegotiateMTU(_ mtu: Int) async {}
}
