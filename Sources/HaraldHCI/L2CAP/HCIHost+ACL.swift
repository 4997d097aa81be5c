import HaraldCodec
import Logging

// The host's side of L2CAP: it feeds the channel manager (L2CAPChannelManager.swift) the ACL data
// the controller sends and the flow control (ACLFlowControl.swift) the SDUs callers send, and
// carries out what they return. Both are plain values on this actor; nothing here decides a rule.
//
// Replies L2CAP sends on its own go out from background tasks: the reader must never wait for
// controller buffers, since only the reader can see the Number Of Completed Packets that frees them.
extension HCIHost {
    /// Sends an SDU on a fixed channel of a connection, fragmented to the controller's ACL data
    /// length. Returns once every fragment is handed to the controller; waits for buffers
    /// (Number Of Completed Packets) when the controller's are all in use.
    func sendL2CAP(handle: UInt16, cid: UInt16, sdu: [UInt8]) async throws(HCIError) {
        try ensureOpen()
        guard connections[handle] != nil else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        guard sdu.count <= Int(UInt16.max) else { throw .unsupported("an L2CAP SDU holds at most 65535 bytes") }
        let id = newRequestID()
        let maximum = controller?.aclDataLength ?? 27
        aclFlow.enqueue(
            OutboundPDU(
                id: id, handle: handle,
                fragments: fragmentL2CAP(cid: cid, sdu: sdu, handle: handle, maximumDataLength: maximum)))
        await sendQueuedACL()
        if finishedPDUs.remove(id) != nil { return }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, HCIError>, Never>) in
            if finishedPDUs.remove(id) != nil {
                continuation.resume(returning: .success(()))
            } else if let closedError {
                continuation.resume(returning: .failure(closedError))
            } else if !aclFlow.isQueued(id) {
                // Dropped by a disconnection while we were sending.
                let reason = connections[handle] == nil ? HCIStatus.unknownConnectionIdentifier : .unspecifiedError
                continuation.resume(returning: .failure(.disconnected(reason: reason)))
            } else {
                pduWaiters[id] = continuation
            }
        }
        try result.get()
    }

    /// Hands queued fragments to the controller while it has free buffers.
    func sendQueuedACL() async {
        guard !isSendingACL else { return }
        isSendingACL = true
        defer { isSendingACL = false }
        while closedError == nil, let transmission = aclFlow.nextTransmission() {
            do {
                try await transmit(transmission.packet.packet)
            } catch {
                backgroundFailed(error, activity: "sending ACL data", handle: transmission.packet.handle)  // closes the host
                return
            }
            if let id = transmission.completes { pduFinished(id, .success(())) }
        }
    }

    func pduFinished(_ id: UInt64, _ result: Result<Void, HCIError>) {
        guard id != 0, !channelPDUFinished(id, result) else { return }
        if let waiter = pduWaiters.removeValue(forKey: id) {
            waiter.resume(returning: result)
        } else if case .success = result {
            finishedPDUs.insert(id)
        }
    }

    /// An ACL fragment from the controller: L2CAP decides, the host carries it out.
    func handleACL(_ fragment: ACLDataPacket) {
        switch l2cap.receive(fragment) {
        case .none:
            break
        case .unrouted:
            unroutableACL(fragment)
        case let .sdu(cid, sdu):
            guard let connection = connections[fragment.handle]?.connection else { return }
            if cid == L2CAPFixedChannel.attributeProtocol {
                connection.att.deliver(sdu)
            } else {
                connection.securityManager.deliver(sdu)
            }
        case let .response(request, accepted):
            answered(request, accepted: accepted)
        case let .reply(reply):
            sendReply(reply)
        case let .channelEvents(handle, events):
            carryChannelEvents(events, on: handle)
        case let .replyDropped(handle, cid, waiting, firstOfFlood):
            droppedReplies += 1
            let metadata: Logger.Metadata = ["connection": "0x\(Hex.word(handle))", "channel": "0x\(Hex.word(cid))", "waiting": "\(waiting)"]
            if firstOfFlood {
                logger.notice("dropping replies: the peer asks faster than the controller takes data", metadata: metadata)
            } else {
                logger.debug("dropped a reply", metadata: metadata)
            }
        }
    }

    /// Sends a reply L2CAP made on its own from a background task, then applies the connection
    /// parameters it accepted, if any.
    private func sendReply(_ reply: L2CAPReply) {
        let activity =
            reply.cid == L2CAPFixedChannel.leSignaling
            ? "answering on the LE signaling channel" : "answering on the security manager channel"
        startBackground { host in
            await host.bestEffort(activity, handle: reply.handle) { host throws(HCIError) in
                try await host.sendL2CAP(handle: reply.handle, cid: reply.cid, sdu: reply.sdu)
            }
            host.l2cap.replyLeftQueue(reply)
            guard let update = reply.update else { return }
            await host.bestEffort("LE Connection Update", handle: reply.handle) { host throws(HCIError) in
                try await host.executeAccepted(.leConnectionUpdate(handle: reply.handle, parameters: update))
            }
        }
    }
}
