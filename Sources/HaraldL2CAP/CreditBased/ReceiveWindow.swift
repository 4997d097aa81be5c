/// How one end of a credit-based channel grants credits (Core spec Vol 3 Part A §10.1): from the
/// space its consumer has, in bulk.
///
/// The window is the most K-frames the channel may hold at once: those the peer may still send
/// (its credits) plus those received and not yet taken by the consumer (in reassembly, or whole
/// SDUs waiting to be read). Memory is therefore bounded by `window × MPS` bytes whatever the peer
/// does. When the consumer takes an SDU, the K-frames it came in are free again; they are given
/// back to the peer in one Flow Control Credit Indication once at least half the window is free
/// (or at once when the peer holds no credit at all), never one by one: a grant per K-frame costs
/// a signaling PDU per K-frame and stalls the sender between them, which is what keeps published
/// measurements of naive receivers at a twentieth of the link's rate.
public struct ReceiveWindow: Hashable, Sendable {
    /// Most K-frames held or in flight at once.
    public let window: Int
    /// Credits the peer holds now: K-frames it may still send.
    public private(set) var peerCredits: Int
    /// K-frames received whose SDUs the consumer has not taken yet.
    public private(set) var heldFrames: Int

    /// A window of `window` K-frames, all of them given to the peer as its initial credits.
    public init(window: Int) {
        self.window = max(1, min(window, ChannelCredits.maximum))
        peerCredits = self.window
        heldFrames = 0
    }

    /// The window for a receiver announcing `mtu` and `mps` with room for `bufferCapacity` bytes:
    /// the capacity in K-frames, but never less than two full SDUs (so a consumer that has taken
    /// everything always frees enough for the peer to finish the SDU it is in), nor more than
    /// 65,535.
    public static func window(mtu: Int, mps: Int, bufferCapacity: Int) -> Int {
        let framesPerSDU = (mtu + 2 + mps - 1) / max(1, mps)
        return min(ChannelCredits.maximum, max(2 * framesPerSDU, bufferCapacity / max(1, mps)))
    }

    /// A K-frame arrived. False when the peer had no credit for it (a protocol violation: the
    /// channel must be disconnected).
    public mutating func frameArrived() -> Bool {
        guard peerCredits > 0 else { return false }
        peerCredits -= 1
        heldFrames += 1
        return true
    }

    /// The consumer took `frames` K-frames' worth of data (or they were dropped). Returns the
    /// credits to grant now, if it is time to (at least half the window free, or the peer stalled
    /// with none), and counts them as the peer's.
    public mutating func release(_ frames: Int) -> UInt16? {
        heldFrames = max(0, heldFrames - frames)
        let free = window - peerCredits - heldFrames
        guard free > 0, free >= (window + 1) / 2 || peerCredits == 0 else { return nil }
        peerCredits += free
        return UInt16(free)
    }
}
