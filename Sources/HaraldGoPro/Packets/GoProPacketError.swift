import HaraldCodec
/// Why an Open GoPro packet stream could not be reassembled, or a message not split into packets.
public enum GoProPacketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A notification with no bytes at all.
    case emptyPacket
    /// An extended start header cut short: it needs `needed` bytes, the packet has `available`.
    case truncatedHeader(needed: Int, available: Int)
    /// A start header of the reserved type `0b11` (the byte is given).
    case reservedHeader(UInt8)
    /// A continuation packet (its counter is given) while no message was being received.
    case continuationWithoutStart(counter: UInt8)
    /// A packet carried more bytes than the message announced: `announced` bytes were expected,
    /// the packets so far hold `received`.
    case moreBytesThanAnnounced(announced: Int, received: Int)
    /// A start packet arrived while a message was still incomplete (`received` of `announced`
    /// bytes). The incomplete message is dropped.
    case newStartWhileIncomplete(announced: Int, received: Int)
    /// Sending: the message is longer than an Extended 13-bit header can announce (8191 bytes).
    case messageTooLongToSend(length: Int)
    /// Sending: the packet size is too small to carry the header and any data (at least 3 bytes).
    case packetSizeTooSmall(Int)
    /// Encoding a header: the length (or counter) does not fit its field.
    case lengthDoesNotFitHeader(Int)

    /// What was wrong with the packet stream, with the counts or byte involved, e.g.
    /// `message announced 20 bytes but packets carry 23`.
    public var description: String {
        switch self {
        case .emptyPacket: return "empty packet"
        case let .truncatedHeader(needed, available):
            return "packet header needs \(needed) bytes, the packet has \(available)"
        case let .reservedHeader(byte):
            return "reserved packet header 0x" + Hex.byte(byte)
        case let .continuationWithoutStart(counter):
            return "continuation packet #\(counter) without a start packet"
        case let .moreBytesThanAnnounced(announced, received):
            return "message announced \(announced) bytes but packets carry \(received)"
        case let .newStartWhileIncomplete(announced, received):
            return "new message started while the previous one was incomplete (\(received) of \(announced) bytes); the incomplete message is dropped"
        case let .messageTooLongToSend(length):
            return "message of \(length) bytes exceeds the 8191 bytes an extended 13-bit header can announce"
        case let .packetSizeTooSmall(size):
            return "packet size \(size) is too small (at least 3 bytes)"
        case let .lengthDoesNotFitHeader(length):
            return "\(length) does not fit the header field"
        }
    }

}
