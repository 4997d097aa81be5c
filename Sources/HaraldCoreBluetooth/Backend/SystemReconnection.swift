import Foundation
import Harald
import HaraldCore

extension CoreBluetoothBackend {
    /// Stops a connection the system is making for the app by itself — an automatic
    /// reconnection (`ConnectionOptions/enableAutoReconnect`) or a pending connect handed back
    /// by state restoration — with `cancelPeripheralConnection`. An attempt a `connect` of the
    /// app waits for is left to that call (cancel its task to stop it).
    public func cancelSystemConnection(to peripheral: PeripheralIdentifier) async {
        guard let uuid = peripheral.uuid else { return }
        state.withLock { state in
            guard var link = state.links[uuid], link.phase == .connecting, link.systemConnecting, link.connectWaiters.isEmpty else { return }
            let target = link.peripheral
            link.phase = .idle
            link.systemConnecting = false
            link.connectIssued = false
            link.autoReconnect = false
            state.links[uuid] = link
            systemConnectionStopped(uuid, in: &state)
            state.outbox.append(OutgoingCall { central in central.cancelPeripheralConnection(target) })
        }
        answerReconnectionWaiters()
        sendOutbox()
    }

    /// Whether the system said it is reconnecting connection `generation` of `uuid` (or has
    /// reconnected it already).
    func isReconnectingBySystem(_ uuid: UUID, generation: UInt64) -> Bool {
        state.withLock { $0.links[uuid]?.systemReconnection?.from == generation }
    }

    /// The generation the system brought up when it reconnected connection `generation` of
    /// `uuid` by itself; nil at once when it is not reconnecting it, or once the reconnection
    /// stops (cancelled, failed, the radio went off) or the waiting task is cancelled.
    func systemReconnection(of uuid: UUID, generation: UInt64) async -> UInt64? {
        let id = state.withLock { $0.makeID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<UInt64?, Never>) in
                let now: UInt64?? = state.withLock { state in
                    guard let reconnection = state.links[uuid]?.systemReconnection, reconnection.from == generation else { return .some(nil) }
                    if let to = reconnection.to { return .some(to) }
                    if Task.isCancelled { return .some(nil) }
                    state.links[uuid]?.reconnectionWaiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.links[uuid]?.reconnectionWaiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }

    /// The system's reconnection of `uuid` stopped without a connection (lock held): its
    /// waiters get nil once the lock is released (``answerReconnectionWaiters()``).
    func systemConnectionStopped(_ uuid: UUID, in state: inout State) {
        guard var link = state.links[uuid] else { return }
        if link.systemReconnection?.to == nil { link.systemReconnection = nil }
        state.reconnectionAnswers += link.reconnectionWaiters.values.map { ($0, nil) }
        link.reconnectionWaiters = [:]
        state.links[uuid] = link
    }

    /// Resumes the reconnection waiters answered while the lock was held.
    func answerReconnectionWaiters() {
        let answers = state.withLock { state in
            defer { state.reconnectionAnswers = [] }
            return state.reconnectionAnswers
        }
        for answer in answers { answer.waiter.resume(returning: answer.generation) }
    }
}
