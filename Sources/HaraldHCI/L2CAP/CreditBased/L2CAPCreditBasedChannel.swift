import HaraldCore
import HaraldL2CAP

/// One open connection-oriented channel on an LE link of an ``HCIHost``, in LE Credit Based or
/// Enhanced Credit Based Flow Control Mode: whole SDUs out with ``send(_:)``, whole SDUs in with
/// ``receive()``.
///
/// Credits flow as the spec says and as `ReceiveWindow` describes: a send waits while the peer
/// has given none, and an SDU's K-frames go back to the peer as credits once ``receive()`` has
/// taken it, so a reader that stops holds the peer at the channel's window. The channel closes
/// when either end asks, when the peer breaks the mode's rules, or with the link; a channel
/// released while open is closed.
public final class L2CAPCreditBasedChannel: Sendable {
    /// What a channel and the host share: why it closed, and the peer's limits (which an
    /// enhanced-mode reconfiguration may raise).
    final class Shared: Sendable {
        struct State {
            var closeReason: ChannelCloseReason?
            var peerMTU: Int
            var peerMPS: Int
        }
        let state: Locked<State>
        init(peerMTU: Int, peerMPS: Int) { state = Locked(State(peerMTU: peerMTU, peerMPS: peerMPS)) }
    }

    /// The connection handle of the link.
    public let connectionHandle: UInt16
    /// The channel as the two ends opened it (our and the peer's CID, SPSM, mode, MTUs and MPSs).
    public let info: CreditBasedChannelInfo
    let shared: Shared
    private let hostReference: HostReference

    init(handle: UInt16, info: CreditBasedChannelInfo, shared: Shared, host: HCIHost) {
        connectionHandle = handle
        self.info = info
        self.shared = shared
        hostReference = HostReference(host)
    }

    deinit {
        guard shared.state.withLock({ $0.closeReason == nil }), let host = hostReference.host else { return }
        let key = ChannelKey(handle: connectionHandle, cid: info.localCID)
        host.startBackground { host in host.closeChannel(key, forget: true) }
    }

    var key: ChannelKey { ChannelKey(handle: connectionHandle, cid: info.localCID) }

    /// Largest SDU the peer takes now.
    public var peerMTU: Int { shared.state.withLock { $0.peerMTU } }

    /// Why the channel closed; nil while it is open.
    public var closeReason: ChannelCloseReason? { shared.state.withLock { $0.closeReason } }

    /// Sends one SDU (at most ``peerMTU`` bytes) and returns once its last K-frame is handed to the
    /// controller, waiting while the peer has given no credits. Throws
    /// ``HCIError/channelClosed(_:)`` once the channel is closed (an SDU part-way out is dropped).
    public func send(_ sdu: [UInt8]) async throws(HCIError) {
        if let reason = closeReason { throw .channelClosed(reason) }
        guard let host = hostReference.host else { throw .closed }
        try await host.sendOnChannel(key, sdu).get()
    }

    /// The next SDU from the peer, waiting for one; nil once the channel has closed and every SDU
    /// received before was taken. One reader at a time (a second gets ``HCIError/busy(_:)``);
    /// cancelling the reader's task ends the wait with ``HCIError/cancelled``.
    public func receive() async throws(HCIError) -> [UInt8]? {
        guard let host = hostReference.host else { return nil }
        return try await host.receiveOnChannel(key).get()
    }

    /// Closes the channel (Disconnection Request); does nothing once it is closed.
    public func close() async {
        await hostReference.host?.closeChannel(key, forget: false)
    }
}

/// The channels peers open on one SPSM an ``HCIHost`` serves.
public final class CreditBasedChannelListener: Sendable {
    /// The SPSM served.
    public let spsm: UInt16
    /// Each channel a peer opens, once its security was admitted and it is open; ends when the
    /// listener stops or the host closes.
    public let channels: AsyncStream<L2CAPCreditBasedChannel>
    private let hostReference: HostReference

    init(spsm: UInt16, channels: AsyncStream<L2CAPCreditBasedChannel>, host: HCIHost) {
        self.spsm = spsm
        self.channels = channels
        hostReference = HostReference(host)
    }

    /// Stops serving the SPSM (channels already open stay open).
    public func stop() async { await hostReference.host?.stopServing(spsm: spsm) }
}

/// A channel on one link: its connection handle and our CID.
struct ChannelKey: Hashable, Sendable {
    let handle: UInt16
    let cid: UInt16
}

/// A signaling request of ours on one link.
struct ChannelRequestKey: Hashable, Sendable {
    let handle: UInt16
    let identifier: UInt8
}
