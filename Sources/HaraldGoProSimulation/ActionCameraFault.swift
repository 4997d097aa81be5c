/// A misbehaviour of the simulated action camera, for tests of the camera kit's error paths.
public struct ActionCameraFault: Hashable, Sendable {
    /// The request whose answers are affected (every time it is asked, unless `times` limits it).
    public enum Request: Hashable, Sendable {
        /// A command (GP-0072) with this ID.
        case command(UInt8)
        /// A setting (GP-0074) with this ID.
        case setting(UInt8)
        /// A query (GP-0076) with this ID.
        case query(UInt8)
    }

    /// What the camera does instead of answering normally.
    public enum Action: Hashable, Sendable {
        /// The answer is never sent.
        case neverAnswer
        /// The answer's start packet is lost: only its continuation packets arrive (an answer
        /// that fits one packet is sent as a lone continuation packet).
        case loseStartPacket
        /// The answer's last packet is lost: the message never completes (an answer that fits
        /// one packet is not sent at all).
        case loseLastPacket
        /// The answer is well packetized, but its payload ends in a TLV entry announcing more
        /// bytes than follow.
        case malformedPayload
        /// The answer's second packet arrives with a damaged header: a reserved start header
        /// (0x60) where its continuation header belongs, so the message breaks mid-way and the
        /// continuation packets after it belong to no message (an answer that fits one packet is
        /// sent unchanged).
        case corruptHeaderMidMessage
        /// The answer is sent twice; the copy reaches the client when no request waits for it.
        case answerTwice
    }

    /// Which request the fault applies to.
    public var request: Request
    /// What the camera does wrong.
    public var action: Action
    /// How many answers to `request` misbehave, counting from the first; nil: all of them.
    public var times: Int?
    /// How long the camera holds a misbehaving answer before sending it (its write is
    /// acknowledged at once), so that the answer arrives while the client already waits.
    public var delay: Duration

    /// A fault on `request`: `action` for the first `times` answers (nil: every one), after `delay`.
    public init(_ request: Request, _ action: Action, times: Int? = nil, delay: Duration = .zero) {
        self.request = request
        self.action = action
        self.times = times
        self.delay = delay
    }
}
