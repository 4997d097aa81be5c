import HaraldL2CAP

/// The host's side of its links' credit-based channels: who waits for what. The rules live in each
/// link's `CreditBasedChannels` (in the channel manager); this holds the callers: opens waiting
/// for the peer's answer, readers waiting for SDUs, senders waiting for their SDU to leave, the
/// servers' admission checks and channel streams.
struct CreditBasedChannelTable {
    /// One channel's callers and unread SDUs.
    struct Entry {
        let shared: L2CAPCreditBasedChannel.Shared
        /// SDUs received and not yet read, oldest first (at most the channel's window of K-frames).
        var inbox: [[UInt8]] = []
        var inboxHead = 0
        var reader: CheckedContinuation<Result<[UInt8]?, HCIError>, Never>?
        /// Senders waiting for their SDU, by the SDU's id.
        var sends: [UInt64: CheckedContinuation<Result<Void, HCIError>, Never>] = [:]
        var isClosed: Bool { shared.state.withLock { $0.closeReason != nil } }
        var unread: Int { inbox.count - inboxHead }

        mutating func takeOldest() -> [UInt8]? {
            guard inboxHead < inbox.count else { return nil }
            let sdu = inbox[inboxHead]
            inbox[inboxHead] = []
            inboxHead += 1
            if inboxHead == inbox.count {
                inbox.removeAll(keepingCapacity: true)
                inboxHead = 0
            }
            return sdu
        }
    }

    /// An open of ours waiting for the peer's answer.
    struct Open {
        let continuation: CheckedContinuation<Result<L2CAPCreditBasedChannel, HCIError>, Never>
        let localCID: UInt16
    }

    /// A served SPSM.
    struct Server {
        let continuation: AsyncStream<L2CAPCreditBasedChannel>.Continuation
        /// Decides whether a peer's request may open channels (its link's security): nil accepts,
        /// a result refuses.
        let admit: @Sendable (UInt16, IncomingChannelRequest) async -> CreditBasedConnectionResult?
    }

    var entries: [ChannelKey: Entry] = [:]
    var opens: [ChannelRequestKey: Open] = [:]
    var servers: [UInt16: Server] = [:]
    /// The timer of each signaling request of ours still waiting.
    var requestTimers: [ChannelRequestKey: HostTimer] = [:]
    /// The ACL PDU carrying an SDU's last K-frame → the channel and SDU id.
    var sduCompletions: [UInt64: (ChannelKey, UInt64)] = [:]
    /// SDUs whose last K-frame left before their sender started waiting.
    var finishedSDUs: Set<UInt64> = []
    /// Replies to peer requests on their way, counted against the link's reply bound.
    var replyPDUs: [UInt64: L2CAPReply] = [:]

    /// Callers waiting now (for the host's continuation count).
    var waiting: Int {
        opens.count + entries.values.reduce(0) { $0 + ($1.reader == nil ? 0 : 1) + $1.sends.count }
    }
}
