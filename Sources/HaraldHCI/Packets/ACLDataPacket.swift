import HaraldCodec

/// An HCI ACL data packet: one fragment of an L2CAP PDU on a connection.
///
/// Header: `[handle (12 bits) | PB flag << 12 | BC flag << 14 : u16][data length u16]`.
public struct ACLDataPacket: Hashable, Sendable, ByteCodable {
    /// Packet boundary flag: where this fragment sits in its L2CAP PDU.
    public enum PacketBoundary: UInt8, Hashable, Sendable {
        /// First fragment, non-automatically-flushable (what an LE host sends).
        case firstNonFlushable = 0b00
        /// A continuation fragment.
        case continuing = 0b01
        /// First fragment, automatically flushable (what LE controllers send).
        case firstFlushable = 0b10
        /// A complete, automatically flushable PDU (BR/EDR only).
        case complete = 0b11

        /// True for both kinds of first fragment.
        public var isFirst: Bool { self == .firstNonFlushable || self == .firstFlushable }
    }

    /// Connection handle, 0x000-0xEFF.
    public var handle: UInt16
    /// Whether this fragment starts an L2CAP PDU or continues one.
    public var packetBoundary: PacketBoundary
    /// Broadcast flag (0 on LE).
    public var broadcast: UInt8
    /// The fragment's bytes (part of an L2CAP PDU).
    public var data: [UInt8]

    /// A packet for connection `handle` (12 bits).
    public init(handle: UInt16, packetBoundary: PacketBoundary, broadcast: UInt8 = 0, data: [UInt8]) {
        self.handle = handle & 0x0FFF
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast & 0x03
        self.data = data
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let header = try reader.read(UInt16.self, field: "handle")
        handle = header & 0x0FFF
        packetBoundary = PacketBoundary(rawValue: UInt8((header >> 12) & 0x03)) ?? .continuing  // two bits: always a case
        broadcast = UInt8(header >> 14)
        let length = try reader.read(UInt16.self, field: "dataLength")
        data = try reader.readBytes(count: Int(length), field: "data")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard data.count <= Int(UInt16.max) else {
            throw ByteEncodingError(field: "data", detail: "\(data.count) bytes do not fit an ACL packet")
        }
        writer.write(handle & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcast & 0x03) << 14)
        writer.write(UInt16(data.count))
        writer.write(bytes: data)
    }

    /// The packet for a transport (callers keep `data` within the controller's buffer size).
    public var packet: HCIPacket {
        var writer = ByteWriter(capacity: data.count + 4)
        writer.write(handle & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcast & 0x03) << 14)
        writer.write(UInt16(truncatingIfNeeded: data.count))
        writer.write(bytes: data)
        return HCIPacket(type: .acl, payload: writer.bytes)
    }
}
