extension HCIHost {
    /// As peripheral, asks the central for new connection parameters with an L2CAP Connection
    /// Parameter Update Request (Core spec Vol 3 Part A §4.20) and waits for its answer: true
    /// when the central accepted (it then applies them with the link layer's connection update,
    /// which shows in ``LEConnection/parameters``), false when it refused. A central that never
    /// answers fails after `timeout` (the signaling channel's RTX is 1…60 s).
    func requestConnectionParameters(handle: UInt16, _ parameters: LEConnectionParameters, timeout: Duration) async throws(HCIError) -> Bool {
        try ensureOpen()
        guard let state = connections[handle] else { throw .disconnected(reason: .unknownConnectionIdentifier) }
        guard state.connection.role == .peripheral else { throw .unsupported("a central updates the connection itself (LE Connection Update)") }
        guard let request = l2cap.beginRequest(on: handle) else {
            throw .unsupported("every signaling identifier of this link is waiting for an answer")
        }
        let pdu = connectionParameterUpdateRequest(identifier: request.identifier, parameters)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, HCIError>, Never>) in
            var waiter = HostWaiter(continuation: continuation)
            waiter.timer = addDeadline(after: timeout) { host in
                host.requestFailed(request, .commandTimedOut(.leConnectionUpdate))
            }
            signalingWaiters[request] = waiter
            startBackground { host in
                do throws(HCIError) {
                    try await host.sendL2CAP(handle: handle, cid: L2CAPFixedChannel.leSignaling, sdu: pdu)
                } catch {
                    host.requestFailed(request, error)
                }
            }
        }
        return try result.get()
    }

    /// The peer answered a request of ours.
    func answered(_ request: L2CAPSignalingRequest, accepted: Bool) {
        finish(signalingWaiters.removeValue(forKey: request), .success(accepted))
    }

    /// A request of ours ends without an answer: it timed out, could not be sent, or its link ended.
    func requestFailed(_ request: L2CAPSignalingRequest, _ error: HCIError) {
        _ = l2cap.abandon(request)
        finish(signalingWaiters.removeValue(forKey: request), .failure(error))
    }
}
