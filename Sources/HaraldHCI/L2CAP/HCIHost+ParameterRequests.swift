/// One Connection Parameter Update Request of ours waiting for its answer.
struct ParameterRequestKey: Hashable {
    let handle: UInt16
    let identifier: UInt8
}

struct ParameterRequestWaiter {
    let continuation: CheckedContinuation<Result<Bool, HCIError>, Never>
    var timer: Task<Void, Never>?
}

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
        nextSignalingIdentifier = nextSignalingIdentifier == 0xFF ? 1 : nextSignalingIdentifier + 1
        let key = ParameterRequestKey(handle: handle, identifier: nextSignalingIdentifier)
        var body: [UInt8] = []
        for word in [parameters.intervalMin, parameters.intervalMax, parameters.latency, parameters.supervisionTimeout] {
            body += [UInt8(word & 0xFF), UInt8(word >> 8)]
        }
        let request = [LESignalingCode.connectionParameterUpdateRequest, key.identifier, UInt8(body.count), 0] + body
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Bool, HCIError>, Never>) in
            var waiter = ParameterRequestWaiter(continuation: continuation)
            waiter.timer = after(timeout) { host in
                host.parameterRequests.removeValue(forKey: key)?.continuation.resume(returning: .failure(.commandTimedOut(.leConnectionUpdate)))
            }
            parameterRequests[key] = waiter
            startBackground { host in
                do throws(HCIError) {
                    try await host.sendL2CAP(handle: handle, cid: L2CAPFixedChannel.leSignaling, sdu: request)
                } catch {
                    if let waiter = host.parameterRequests.removeValue(forKey: key) {
                        waiter.timer?.cancel()
                        waiter.continuation.resume(returning: .failure(error))
                    }
                }
            }
        }
        return try result.get()
    }

    /// The link ended: its requests fail.
    func failParameterRequests(handle: UInt16, reason: HCIStatus) {
        for key in parameterRequests.keys where key.handle == handle {
            guard let waiter = parameterRequests.removeValue(forKey: key) else { continue }
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: .failure(.disconnected(reason: reason)))
        }
    }
}
