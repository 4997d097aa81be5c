/// The Open GoPro packet framing as the simulated camera applies it, written from the data
/// protocol (protocols.md A.2): every GATT write or notification is a *packet* of at most 20
/// bytes; the first packet of a *message* starts with a header announcing the message length
/// (big-endian), every further packet with a continuation header.
///
/// | first byte | header |
/// |---|---|
/// | `0b000LLLLL` | General: length ≤ 31 |
/// | `0b001LLLLL` + 1 byte | Extended 13-bit: length ≤ 8191 |
/// | `0b010xxxxx` + 2 bytes | Extended 16-bit: length ≤ 65535, camera → client only |
/// | `0b011xxxxx` | reserved |
/// | `0b1rrrCCCC` | continuation, 4-bit counter |
enum CameraPacketFraming {
    /// The largest packet (ATT_MTU 23 − 3), which is what the camera sends.
    static let packetSize = 20

    /// The packets the camera notifies for `message`: a General header when the whole message
    /// fits one packet, otherwise an Extended 13-bit header (Extended 16-bit above 8191 bytes)
    /// and continuation packets whose counter counts 0…15 and wraps.
    static func packets(for message: [UInt8]) -> [[UInt8]] {
        let length = message.count
        let header: [UInt8]
        if length < packetSize {
            return [[UInt8(length)] + message]
        } else if length <= 8191 {
            header = [0x20 | UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            header = [0x40, UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        }
        let firstCount = min(length, packetSize - header.count)
        var packets = [header + message[0..<firstCount]]
        var offset = firstCount
        var counter: UInt8 = 0
        while offset < length {
            let count = min(length - offset, packetSize - 1)
            packets.append([0x80 | counter] + message[offset..<offset + count])
            offset += count
            counter = (counter + 1) & 0x0F
        }
        return packets
    }
}

/// Reassembles the requests arriving on one of the camera's request characteristics, as the
/// Open GoPro SDK's accumulator does (protocols.md A.2, "Reassembly"): a start packet begins a
/// new message (dropping any unfinished one), a continuation packet appends its bytes, and the
/// message is complete when all announced bytes have arrived. The camera accepts General and
/// Extended 13-bit headers; Extended 16-bit (which "can not be used for sending messages to the
/// camera"), reserved headers, stray continuations and overlong messages are dropped, as a real
/// camera ignores what it cannot read. Continuation counters are not checked.
struct CameraRequestAssembler {
    private var message: [UInt8] = []
    /// Bytes still due for the message under way; nil when none is.
    private var remaining: Int?

    /// The complete request when `packet` ends one; nil while more packets are due, and for a
    /// packet the camera drops.
    mutating func take(_ packet: [UInt8]) -> [UInt8]? {
        guard let first = packet.first else { return nil }
        let payload: ArraySlice<UInt8>
        if first & 0x80 != 0 {
            guard remaining != nil else { return nil }
            payload = packet.dropFirst()
        } else {
            let length: Int
            switch first >> 5 {
            case 0b000:
                length = Int(first & 0x1F)
                payload = packet.dropFirst()
            case 0b001 where packet.count >= 2:
                length = Int(first & 0x1F) << 8 | Int(packet[1])
                payload = packet.dropFirst(2)
            default:
                remaining = nil
                message = []
                return nil
            }
            message = []
            message.reserveCapacity(length)
            remaining = length
        }
        guard let due = remaining, payload.count <= due else {
            // More bytes than announced: the message is unreadable.
            remaining = nil
            message = []
            return nil
        }
        message += payload
        remaining = due - payload.count
        guard remaining == 0 else { return nil }
        remaining = nil
        defer { message = [] }
        return message
    }
}
