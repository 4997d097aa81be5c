/// Cuts an H4 byte stream (as TCP or a UART delivers it) into whole HCI packets.
///
/// Bytes may arrive split anywhere; the parser keeps only the packet it is assembling, whose size
/// the packet header bounds (at most 4 + 65 535 bytes), so memory stays bounded whatever arrives.
/// An unknown indicator byte means the framing is lost: the parser reports it once and then
/// refuses all further input.
public struct H4Parser: Sendable {
    private enum State: Sendable {
        case indicator
        case header(HCIPacketType)
        case body(HCIPacketType, total: Int)
        case failed(HCITransportError)
    }

    private var state: State = .indicator
    private var buffer: [UInt8] = []
    /// Bytes consumed since the start of the stream (for error offsets).
    public private(set) var streamOffset = 0

    /// A parser with nothing buffered.
    public init() {}

    /// Header length (after the indicator) for each packet type.
    private static func headerLength(_ type: HCIPacketType) -> Int {
        switch type {
        case .command: return 3  // opcode u16, length u8
        case .acl: return 4  // handle+flags u16, length u16
        case .sco: return 3  // handle+flags u16, length u8
        case .event: return 2  // code u8, length u8
        case .iso: return 4  // handle+flags u16, length u14 (+2 flag bits)
        }
    }

    /// Parameter/data length announced by a complete header.
    private static func bodyLength(_ type: HCIPacketType, header: [UInt8]) -> Int {
        switch type {
        case .command, .sco: return Int(header[2])
        case .event: return Int(header[1])
        case .acl: return Int(header[2]) | Int(header[3]) << 8
        case .iso: return (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF
        }
    }

    /// The error that stopped the parser, if any: a packet started with a byte that is no packet
    /// type (``HCITransportError/invalidPacketIndicator(_:offset:)``). Once set, every later
    /// ``feed(_:)`` returns no packets.
    public var error: HCITransportError? {
        if case let .failed(error) = state { return error }
        return nil
    }

    /// Feeds the next bytes of the stream; returns the packets they complete, in order.
    ///
    /// Packets completed before a bad indicator byte are still returned; check ``error`` after
    /// each call.
    public mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [HCIPacket] {
        var packets: [HCIPacket] = []
        for byte in bytes {
            switch state {
            case .failed:
                return packets
            case .indicator:
                guard let type = HCIPacketType(rawValue: byte) else {
                    state = .failed(.invalidPacketIndicator(byte, offset: streamOffset))
                    buffer = []
                    return packets
                }
                buffer.removeAll(keepingCapacity: true)
                state = .header(type)
            case let .header(type):
                buffer.append(byte)
                if buffer.count == Self.headerLength(type) {
                    let total = Self.headerLength(type) + Self.bodyLength(type, header: buffer)
                    if total == buffer.count {
                        packets.append(HCIPacket(type: type, payload: buffer))
                        state = .indicator
                    } else {
                        buffer.reserveCapacity(total)
                        state = .body(type, total: total)
                    }
                }
            case let .body(type, total):
                buffer.append(byte)
                if buffer.count == total {
                    packets.append(HCIPacket(type: type, payload: buffer))
                    state = .indicator
                }
            }
            streamOffset += 1
        }
        return packets
    }

    /// True when no partial packet is pending (the stream is between packets).
    public var isAtPacketBoundary: Bool {
        if case .indicator = state { return true }
        return false
    }
}
