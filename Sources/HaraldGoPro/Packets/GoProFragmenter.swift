/// Splits a message into the Open GoPro packets that carry it to the camera.
///
/// The first packet starts with an Extended 13-bit header (the header the docs recommend for
/// sending; messages up to 8191 bytes), each following packet with a continuation header whose
/// 4-bit counter starts at 0 and wraps after 15. Packets are at most `packetSize` bytes: 20 by
/// default (ATT_MTU 23 minus the 3-byte ATT header), or `ATT_MTU − 3` with
/// ``packetSize(attMTU:)``.
public enum GoProFragmenter {
    /// The packet size every Open GoPro camera accepts: 20 bytes.
    public static let defaultPacketSize = 20

    /// The largest packet a notification or write can carry at `attMTU`.
    public static func packetSize(attMTU: Int) -> Int { max(attMTU - 3, 3) }

    /// How many packets ``fragment(_:packetSize:)`` makes for a message of `length` bytes.
    public static func packetCount(messageLength length: Int, packetSize: Int = defaultPacketSize) -> Int {
        let first = packetSize - 2
        guard length > first else { return 1 }
        let rest = length - first
        return 1 + (rest + packetSize - 2) / (packetSize - 1)
    }

    /// The packets for `message`, in sending order.
    ///
    /// Throws ``GoProPacketError/messageTooLongToSend(length:)`` above 8191 bytes and
    /// ``GoProPacketError/packetSizeTooSmall(_:)`` below 3 bytes.
    public static func fragment(_ message: [UInt8], packetSize: Int = defaultPacketSize) throws(GoProPacketError) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        packets.reserveCapacity(packetCount(messageLength: message.count, packetSize: max(packetSize, 3)))
        try forEachPacket(of: message, packetSize: packetSize) { packets.append($0) }
        return packets
    }

    /// Calls `body` with each packet for `message`, in sending order, without collecting them.
    public static func forEachPacket(
        of message: [UInt8], packetSize: Int = defaultPacketSize, _ body: ([UInt8]) throws(GoProPacketError) -> Void
    ) throws(GoProPacketError) {
        guard message.count <= GoProPacketHeader.maximumExtended13Length else {
            throw .messageTooLongToSend(length: message.count)
        }
        guard packetSize >= 3 else { throw .packetSizeTooSmall(packetSize) }
        let length = message.count
        let firstCount = min(length, packetSize - 2)
        var packet: [UInt8] = []
        packet.reserveCapacity(firstCount + 2)
        packet.append(0x20 | UInt8(length >> 8))
        packet.append(UInt8(length & 0xFF))
        packet.append(contentsOf: message[0..<firstCount])
        try body(packet)
        var offset = firstCount
        var counter: UInt8 = 0
        while offset < length {
            let count = min(length - offset, packetSize - 1)
            var next: [UInt8] = []
            next.reserveCapacity(count + 1)
            next.append(0x80 | counter)
            next.append(contentsOf: message[offset..<offset + count])
            try body(next)
            offset += count
            counter = (counter + 1) & 0x0F
        }
    }
}
