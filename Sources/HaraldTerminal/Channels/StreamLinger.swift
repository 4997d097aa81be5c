/// When a netcat-like copy over a channel (`harald l2cap connect`) ends: once its input has ended
/// and the peer has sent nothing for the linger time.
public enum StreamLinger {
    /// The instant the copy may end: `linger` after the later of the input's end and the peer's
    /// last data (data before the input ended counts from the input's end); nil while the input
    /// has not ended, however quiet the peer is.
    public static func deadline<Instant: InstantProtocol>(inputEnded: Instant?, lastPeerData: Instant?, linger: Instant.Duration) -> Instant? {
        guard let inputEnded else { return nil }
        guard let lastPeerData, lastPeerData > inputEnded else { return inputEnded.advanced(by: linger) }
        return lastPeerData.advanced(by: linger)
    }

    /// Whether the copy ends at `now` (see ``deadline(inputEnded:lastPeerData:linger:)``).
    public static func hasEnded<Instant: InstantProtocol>(at now: Instant, inputEnded: Instant?, lastPeerData: Instant?, linger: Instant.Duration) -> Bool {
        guard let deadline = deadline(inputEnded: inputEnded, lastPeerData: lastPeerData, linger: linger) else { return false }
        return now >= deadline
    }
}
