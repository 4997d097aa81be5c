import Harald
import HaraldCore
import HaraldL2CAP

/// A connection-oriented channel of a simulated link, as the public API's channel backend: one
/// element per SDU, credits back to the peer as ``receive()`` takes them (see
/// ``SimulatedChannelEndpoint``).
final class SimulatedChannel: L2CAPChannelBackend {
    private weak let endpoint: SimulatedChannelEndpoint?
    let info: CreditBasedChannelInfo
    let psm: L2CAPPSM
    private let closedState = Locked<L2CAPChannelCloseReason?>(nil)

    init(endpoint: SimulatedChannelEndpoint, info: CreditBasedChannelInfo) {
        self.endpoint = endpoint
        self.info = info
        psm = L2CAPPSM(info.spsm)
    }

    var mtu: Int? { info.mtu }
    var peerMTU: Int? { info.peerMTU }

    /// Why it closed, once it has.
    var closeReason: L2CAPChannelCloseReason? { closedState.withLock { $0 } }

    func markClosed(_ reason: L2CAPChannelCloseReason) { closedState.withLock { $0 = $0 ?? reason } }

    func send(_ sdu: [UInt8]) async throws(BluetoothError) {
        if let reason = closeReason { throw .channelClosed(reason) }
        guard let endpoint else { throw .channelClosed(.linkLost) }
        try await endpoint.send(sdu, on: info.localCID).get()
    }

    func receive() async throws(BluetoothError) -> [UInt8]? {
        guard let endpoint else { return nil }
        return try await endpoint.receive(on: info.localCID).get()
    }

    func closeReason() async -> L2CAPChannelCloseReason? { closeReason }

    func close() async { await endpoint?.close(info.localCID) }

    /// Sends `bytes` as one K-frame payload on the channel, outside the engine's rules (a
    /// misbehaving device).
    func sendRaw(_ bytes: [UInt8]) async { await endpoint?.sendRaw(bytes, cid: info.remoteCID) }

    /// Closes the channel from a task of the simulation (for callers that cannot wait).
    func closeInBackground() {
        guard let endpoint else { return }
        endpoint.link.clock.taskStarter.start { await endpoint.close(self.info.localCID) }
    }

    /// The public API's close reason for the engine's.
    static func reason(_ reason: ChannelCloseReason) -> L2CAPChannelCloseReason {
        switch reason {
        case .closedLocally, .timedOut: .localRequest
        case .closedByPeer: .remoteRequest
        case .linkLost: .linkLost
        case let .protocolViolation(violation): .protocolViolation("\(violation)")
        }
    }
}

extension SimulatedChannel {
    /// The public API's options as the engine's receive limits.
    static func limits(_ options: L2CAPChannelOptions) -> CreditBasedReceiveLimits {
        CreditBasedReceiveLimits(mtu: options.mtu, mps: options.mps, bufferCapacity: options.receiveBuffer)
    }

    static func mode(_ mode: L2CAPChannelMode) -> CreditBasedMode { mode == .leCreditBased ? .leCreditBased : .enhancedCreditBased }
}
