/// One packet of the throughput protocol that Bumble's `bench` app speaks over a byte stream (its
/// `l2cap-client`/`l2cap-server` modes): `harald l2cap bench` speaks it too, so either side can be
/// Harald or Bumble.
///
/// On the stream, each packet is preceded by its length as a big-endian 16-bit number; SDU
/// boundaries carry no meaning. A sender writes ``reset``, then numbered ``sequence(number:flags:timestamp:payload:)``
/// packets, the last one flagged ``lastFlag``; the receiver answers that one with an
/// ``ack(number:flags:)``, which ends the sender's measurement.
public enum ThroughputBenchPacket: Hashable, Sendable {
    /// Starts a transfer: the receiver resets its counters (one byte: type 0).
    case reset
    /// Data: type 1, flags, the packet's number and the sender's clock in microseconds since the
    /// reset (both little-endian 32-bit numbers), then the payload.
    case sequence(number: UInt32, flags: UInt8, timestamp: UInt32, payload: [UInt8])
    /// The receiver's answer to the last packet: type 2, that packet's flags and number.
    case ack(number: UInt32, flags: UInt8)

    /// The flag of the transfer's last packet.
    public static let lastFlag: UInt8 = 0x01
    /// Bytes a sequence packet takes before its payload.
    public static let sequenceHeaderSize = 10
    /// The largest packet the 16-bit length in front of it can announce.
    public static let maximumSize = 0xFFFF

    /// The packet's bytes (without the length in front).
    public var bytes: [UInt8] {
        switch self {
        case .reset: return [0]
        case let .sequence(number, flags, timestamp, payload):
            return [1, flags] + Self.littleEndian(number) + Self.littleEndian(timestamp) + payload
        case let .ack(number, flags): return [2, flags] + Self.littleEndian(number)
        }
    }

    /// The packet with its length in front, as it goes on the stream; nil when it is longer than
    /// ``maximumSize``.
    public var framed: [UInt8]? {
        let body = bytes
        guard body.count <= Self.maximumSize else { return nil }
        return [UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// Whether it is a sequence packet flagged as the last one.
    public var isLast: Bool {
        if case let .sequence(_, flags, _, _) = self { return flags & Self.lastFlag != 0 }
        return false
    }

    /// The packet in `bytes` (one packet, without its length); nil when the type is unknown or
    /// the packet is shorter than its type needs.
    public init?(bytes: [UInt8]) {
        guard let type = bytes.first else { return nil }
        switch type {
        case 0: self = .reset
        case 1:
            guard bytes.count >= Self.sequenceHeaderSize else { return nil }
            self = .sequence(
                number: Self.word(bytes, at: 2), flags: bytes[1], timestamp: Self.word(bytes, at: 6), payload: Array(bytes[10...]))
        case 2:
            guard bytes.count >= 6 else { return nil }
            self = .ack(number: Self.word(bytes, at: 2), flags: bytes[1])
        default: return nil
        }
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { value, index in value | UInt32(bytes[offset + index]) << (8 * index) }
    }
}

/// Cuts the throughput protocol's byte stream back into packets, whatever the pieces it arrives in.
public struct ThroughputBenchReassembler: Sendable {
    private var buffer: [UInt8] = []
    private var start = 0

    public init() {}

    /// Bytes held that do not make a whole packet yet.
    public var pendingCount: Int { buffer.count - start }

    /// Takes the next piece of the stream; returns each packet it completes (its bytes, without
    /// the length in front), in order.
    public mutating func append(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        buffer.append(contentsOf: bytes)
        var packets: [[UInt8]] = []
        while buffer.count - start >= 2 {
            let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
            guard buffer.count - start - 2 >= length else { break }
            packets.append(Array(buffer[(start + 2)..<(start + 2 + length)]))
            start += 2 + length
        }
        // Drop what was consumed once it outweighs what is left, so the buffer stays small.
        if start > 0, start >= buffer.count - start {
            buffer.removeFirst(start)
            start = 0
        }
        return packets
    }
}

/// What a sender of the throughput protocol sends: whole packets of `packetSize` stream bytes
/// (its length in front included, as Bumble's `--packet-size` counts them) until `totalBytes`
/// is reached, rounded up to a whole packet.
public struct ThroughputBenchPlan: Hashable, Sendable {
    /// Stream bytes per packet, length in front included.
    public let packetSize: Int
    /// Packets sent, the last one flagged.
    public let packetCount: Int

    /// Nil when `packetSize` leaves no room for a sequence packet's header (under 12 bytes) or
    /// exceeds what the length in front can announce, or `totalBytes` is not positive.
    public init?(totalBytes: Int, packetSize: Int) {
        guard totalBytes > 0, packetSize >= 2 + ThroughputBenchPacket.sequenceHeaderSize,
            packetSize <= 2 + ThroughputBenchPacket.maximumSize
        else { return nil }
        self.packetSize = packetSize
        packetCount = (totalBytes + packetSize - 1) / packetSize
    }

    /// Stream bytes of every sequence packet together (the reset not counted).
    public var totalBytes: Int { packetSize * packetCount }

    /// Packet `index` (0-based), its payload zeros as Bumble's are, flagged last at the end.
    public func packet(_ index: Int, timestamp: UInt32) -> ThroughputBenchPacket {
        .sequence(
            number: UInt32(truncatingIfNeeded: index), flags: index == packetCount - 1 ? ThroughputBenchPacket.lastFlag : 0,
            timestamp: timestamp, payload: [UInt8](repeating: 0, count: packetSize - 2 - ThroughputBenchPacket.sequenceHeaderSize))
    }
}

/// A measured transfer: bytes in seconds, and the rate in kilobits per second (1 kbps = 1,000 bits/s).
public struct ThroughputFigures: Hashable, Sendable {
    public var bytes: Int
    public var seconds: Double

    public init(bytes: Int, seconds: Double) {
        self.bytes = bytes
        self.seconds = seconds
    }

    /// Kilobits per second; zero when no time passed.
    public var kbps: Double { seconds > 0 ? Double(bytes) * 8 / seconds / 1000 : 0 }

    /// `1048576 bytes in 6.123 s: 1370.0 kbps`.
    public var text: String {
        "\(bytes) bytes in \(Self.fixed(seconds, digits: 3)) s: \(Self.fixed(kbps, digits: 1)) kbps"
    }

    /// `value` with `digits` decimals, without Foundation's formatting.
    static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled) - whole * Int(scale)
        let fractionText = String(fraction)
        let padded = String(repeating: "0", count: max(0, digits - fractionText.count)) + fractionText
        return (value < 0 && scaled > 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + padded : "")
    }
}
