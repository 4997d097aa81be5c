/// Cuts a TCP byte stream into MQTT packets: bytes arrive in any pieces (half a packet, several
/// packets in one read), and ``next()`` hands out each packet once it is whole.
///
/// A packet that declares a remaining length over ``maximumPacketSize`` is an error as soon as
/// its length is read, before its body is buffered, so a hostile peer cannot make it hold more
/// than that.
public struct MQTTFrameDecoder: Sendable {
    /// Largest remaining length accepted, in bytes (default 1 MiB; the spec allows 256 MiB).
    public let maximumPacketSize: Int
    private var buffer: [UInt8] = []
    private var start = 0

    /// The default of ``maximumPacketSize``: 1 MiB.
    public static let defaultMaximumPacketSize = 1_048_576

    /// A decoder refusing packets longer than `maximumPacketSize` bytes (clamped to 0...268,435,455).
    public init(maximumPacketSize: Int = MQTTFrameDecoder.defaultMaximumPacketSize) {
        self.maximumPacketSize = min(max(0, maximumPacketSize), MQTTRemainingLength.maximum)
    }

    /// Bytes received and not yet handed out as a packet.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet, or nil until more bytes arrive. After an error the stream is
    /// unusable: close the connection.
    public mutating func next() throws(MQTTPacketError) -> MQTTPacket? {
        guard start < buffer.count else { return nil }
        let header = buffer[start]
        guard let (length, size) = try MQTTRemainingLength.decode(buffer, from: start + 1) else { return nil }
        guard length <= maximumPacketSize else { throw .packetTooLarge(declared: length, maximum: maximumPacketSize) }
        let bodyStart = start + 1 + size
        guard buffer.count - bodyStart >= length else { return nil }
        let packet = try MQTTPacket.decode(header: header, body: buffer[bodyStart..<bodyStart + length])
        start = bodyStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return packet
    }
}
