/// The header at the start of every Open GoPro packet (one GATT write or notification).
///
/// A *message* is split into *packets*; the first packet starts with a General, Extended 13-bit
/// or Extended 16-bit header announcing the message length (payload bytes only, headers not
/// counted); every following packet starts with a one-byte continuation header carrying a 4-bit
/// counter that wraps after 15. Lengths are big-endian.
public enum GoProPacketHeader: Hashable, Sendable {
    /// `0b000LLLLL`: a message of at most 31 bytes.
    case general(length: Int)
    /// `0b001LLLLL LLLLLLLL`: a message of at most 8191 bytes; the only header used for sending.
    case extended13(length: Int)
    /// `0b010xxxxx LLLLLLLL LLLLLLLL`: a message of at most 65535 bytes; the camera only sends it.
    case extended16(length: Int)
    /// `0b1rrrCCCC`: the next part of the message being received; `counter` is 0…15.
    case continuation(counter: UInt8)

    /// The largest message each start header can announce.
    public static let maximumGeneralLength = 31
    /// The longest message an Extended (13-bit) header can announce, in bytes.
    public static let maximumExtended13Length = 8191
    /// The longest message an Extended (16-bit) header can announce, in bytes.
    public static let maximumExtended16Length = 65535

    /// Reads the header at the start of `packet` (at least one byte).
    ///
    /// Returns the header and how many bytes it takes. Throws ``GoProPacketError/emptyPacket``,
    /// ``GoProPacketError/truncatedHeader(needed:available:)`` or
    /// ``GoProPacketError/reservedHeader(_:)`` (start header type `0b11`).
    @inlinable
    public static func parse(_ packet: UnsafeRawBufferPointer) throws(GoProPacketError) -> (header: GoProPacketHeader, byteCount: Int) {
        guard let first = packet.first else { throw .emptyPacket }
        if first & 0x80 != 0 { return (.continuation(counter: first & 0x0F), 1) }
        switch (first >> 5) & 0x03 {
        case 0b00:
            return (.general(length: Int(first & 0x1F)), 1)
        case 0b01:
            guard packet.count >= 2 else { throw .truncatedHeader(needed: 2, available: packet.count) }
            return (.extended13(length: Int(first & 0x1F) << 8 | Int(packet[1])), 2)
        case 0b10:
            guard packet.count >= 3 else { throw .truncatedHeader(needed: 3, available: packet.count) }
            return (.extended16(length: Int(packet[1]) << 8 | Int(packet[2])), 3)
        default:
            throw .reservedHeader(first)
        }
    }

    /// Reads the header at the start of `packet`; see ``parse(_:)-(UnsafeRawBufferPointer)``.
    public static func parse(_ packet: [UInt8]) throws(GoProPacketError) -> (header: GoProPacketHeader, byteCount: Int) {
        let result: Result<(header: GoProPacketHeader, byteCount: Int), GoProPacketError> = packet.withUnsafeBytes { raw in
            do throws(GoProPacketError) { return .success(try parse(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The message length a start header announces; nil for a continuation header.
    public var messageLength: Int? {
        switch self {
        case let .general(length), let .extended13(length), let .extended16(length): return length
        case .continuation: return nil
        }
    }

    /// How many bytes the header takes on the wire: 1, 2 or 3.
    public var byteCount: Int {
        switch self {
        case .general, .continuation: return 1
        case .extended13: return 2
        case .extended16: return 3
        }
    }

    /// The header's bytes. Throws when a length does not fit the header's field or a counter is
    /// above 15.
    public func encoded() throws(GoProPacketError) -> [UInt8] {
        switch self {
        case let .general(length):
            guard (0...Self.maximumGeneralLength).contains(length) else { throw .lengthDoesNotFitHeader(length) }
            return [UInt8(length)]
        case let .extended13(length):
            guard (0...Self.maximumExtended13Length).contains(length) else { throw .lengthDoesNotFitHeader(length) }
            return [0x20 | UInt8(length >> 8), UInt8(length & 0xFF)]
        case let .extended16(length):
            guard (0...Self.maximumExtended16Length).contains(length) else { throw .lengthDoesNotFitHeader(length) }
            return [0x40, UInt8(length >> 8), UInt8(length & 0xFF)]
        case let .continuation(counter):
            guard counter <= 0x0F else { throw .lengthDoesNotFitHeader(Int(counter)) }
            return [0x80 | counter]
        }
    }
}
