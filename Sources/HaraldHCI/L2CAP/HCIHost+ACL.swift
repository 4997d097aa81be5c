/// One L2CAP PDU waiting for controller buffers.
struct OutboundPDU {
    let id: UInt64
    let handle: UInt16
    var fragments: [ACLDataPacket]
}

extension HCIHost {
    /// Sends an SDU on a fixed channel of a connection, fragmented to the controller's ACL data
    /// length. Returns once every fragment is handed to the controller; waits for buffers
    /// (Number Of Completed Packets) when the controller's are all in use.
    public func sendL2CAP(handle: UInt16, cid: UInt16, sdu: [UInt8]) async throws(HCIError) {
        try ensureOpen()
        guard connections[handle] != nil else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        guard sdu.count <= Int(UInt16.max) else { throw .unsupported("an L2CAP SDU holds at most 65535 bytes") }
        let id = newRequestID()
        let maximum = controller?.aclDataLength ?? 27
        aclQueue.append(OutboundPDU(id: id, handle: handle,
                                    fragments: fragmentL2CAP(cid: cid, sdu: sdu, handle: handle, maximumDataLength: maximum)))
        await sendQueuedACL()
        if finishedPDUs.remove(id) != nil { return }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, HCIError>, Never>) in
            if finishedPDUs.remove(id) != nil {
                continuation.resume(returning: .success(()))
            } else if let closedError {
                continuation.resume(returning: .failure(closedError))
            } else if !aclQueue.contains(where: { $0.id == id }) {
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
        while closedError == nil, aclCredits > 0, !aclQueue.isEmpty {
            let fragment = aclQueue[0].fragments.removeFirst()
            let pdu = aclQueue[0]
            if pdu.fragments.isEmpty { aclQueue.removeFirst() }
            aclCredits -= 1
            connections[pdu.handle]?.packetsInFlight += 1
            do {
                try await transmit(fragment.packet)
            } catch {
                backgroundFailed(error, activity: "sending ACL data", handle: pdu.handle)  // closes the host
                return
            }
            if pdu.fragments.isEmpty { pduFinished(pdu.id, .success(())) }
        }
    }

    private func pduFinished(_ id: UInt64, _ result: Result<Void, HCIError>) {
        if let waiter = pduWaiters.removeValue(forKey: id) {
            waiter.resume(returning: result)
        } else if case .success = result {
            finishedPDUs.insert(id)
        }
    }

    /// Number Of Completed Packets: the controller freed buffers.
    func packetsCompleted(_ entries: [CompletedPackets]) {
        for entry in entries {
            let count = Int(entry.count)
            if var state = connections[entry.handle] {
                let freed = min(count, state.packetsInFlight)
                state.packetsInFlight -= freed
                connections[entry.handle] = state
                aclCredits += freed
            }
        }
        if let total = controller?.aclPacketCount { aclCredits = min(aclCredits, total) }
    }

    /// Drops the queued PDUs of a connection that ended, failing their senders.
    func dropQueuedPDUs(handle: UInt16, reason: HCIStatus) {
        let dropped = aclQueue.filter { $0.handle == handle }
        aclQueue.removeAll { $0.handle == handle }
        for pdu in dropped { pduFinished(pdu.id, .failure(.disconnected(reason: reason))) }
    }

    /// An ACL fragment from the controller: reassemble and route the PDU by channel.
    func handleACL(_ fragment: ACLDataPacket) async {
        guard var state = connections[fragment.handle] else {
            unroutableACL(fragment)
            return
        }
        let pdu = state.reassembler.add(fragment)
        connections[fragment.handle] = state
        guard let pdu else { return }
        switch pdu.cid {
        case L2CAPFixedChannel.attributeProtocol:
            state.connection.att.deliver(pdu.payload)
        case L2CAPFixedChannel.leSignaling:
            handleSignaling(pdu.payload, handle: fragment.handle)
        case L2CAPFixedChannel.securityManager:
            if configuration.deliversSecurityManagerPDUs {
                state.connection.securityManager.deliver(pdu.payload)
            } else {
                handleSecurityManager(pdu.payload, handle: fragment.handle)
            }
        default:
            break  // no dynamic channels: nothing listens there
        }
    }
}
