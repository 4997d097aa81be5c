import HaraldCodec

/// A command written to the activity fetch control characteristic (0x0004).
///
/// A fetch is two steps: `01 <type> <timestamp>` asks for the records from that minute on (the
/// band answers with a ``MiBandActivityFetchReply/started(count:from:)``), then `02` starts the
/// transfer: ``MiBandActivityPacket``s on 0x0005, then
/// ``MiBandActivityFetchReply/finished(_:)`` on 0x0004.
public enum MiBandActivityFetchCommand: ByteCodable, Hashable, Sendable {
    /// Asks for records of `type` (0x01 = activity) from `since` on.
    case start(since: MiBandTimestamp, type: UInt8 = MiBandActivityFetchCommand.activityType)
    /// Starts sending the records announced by the reply to ``start(since:type:)``.
    case fetch

    /// The data type of per-minute activity records.
    public static let activityType: UInt8 = 0x01

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "command")
        switch code {
        case 0x01:
            let type = try reader.read(UInt8.self, field: "type")
            self = .start(since: try reader.decode(MiBandTimestamp.self, field: "since"), type: type)
        case 0x02:
            self = .fetch
        default:
            throw reader.invalidValue("unknown fetch command 0x\(String(code, radix: 16))", field: "command", at: start)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        switch self {
        case let .start(since, type):
            writer.write(UInt8(0x01))
            writer.write(type)
            try writer.encode(since)
        case .fetch:
            writer.write(UInt8(0x02))
        }
    }
}

/// A reply notified on the activity fetch control characteristic (0x0004).
///
/// - `10 01 01 <count u32> <timestamp>` (15 bytes): the band will send `count` records, the
///   first one for the minute `timestamp`.
/// - `10 01 <status>` (3 bytes): the start was refused.
/// - `10 02 <status>` (3 bytes): the transfer ended (`01` = every record sent).
public enum MiBandActivityFetchReply: ByteCodable, Hashable, Sendable {
    /// The band will send `count` minutes, the first one starting at `from`.
    case started(count: UInt32, from: MiBandTimestamp)
    /// The band refused to start the transfer.
    case refused(MiBandReplyStatus)
    /// The transfer ended (`.success`: every record was sent).
    case finished(MiBandReplyStatus)

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let response = try reader.read(UInt8.self, field: "response")
        guard response == 0x10 else {
            throw reader.invalidValue("expected 0x10, got 0x\(String(response, radix: 16))", field: "response", at: start)
        }
        let commandOffset = reader.offset
        let command = try reader.read(UInt8.self, field: "command")
        let status = MiBandReplyStatus(rawValue: try reader.read(UInt8.self, field: "status"))
        switch command {
        case 0x01 where status == .success:
            let count = try reader.read(UInt32.self, field: "count")
            self = .started(count: count, from: try reader.decode(MiBandTimestamp.self, field: "from"))
        case 0x01:
            self = .refused(status)
        case 0x02:
            self = .finished(status)
        default:
            throw reader.invalidValue("unknown fetch reply 0x\(String(command, radix: 16))", field: "command", at: commandOffset)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(UInt8(0x10))
        switch self {
        case let .started(count, from):
            writer.write(bytes: [0x01, 0x01])
            writer.write(count)
            try writer.encode(from)
        case let .refused(status):
            guard status != .success else { throw ByteEncodingError(field: "status", detail: "a refusal cannot be a success") }
            writer.write(bytes: [0x01, status.rawValue])
        case let .finished(status):
            writer.write(bytes: [0x02, status.rawValue])
        }
    }
}

/// One minute of activity as the band stores it (4 bytes).
public struct MiBandActivitySample: ByteCodable, Hashable, Sendable {
    /// The band's activity kind code (walking, running, sleep phases, not worn, … — raw).
    public var category: UInt8
    /// Movement intensity, 0…255.
    public var intensity: UInt8
    /// Steps in that minute.
    public var steps: UInt8
    /// Heart rate in bpm, raw: 0 and 255 mean "not measured".
    public var rawHeartRate: UInt8

    /// A sample from its four bytes (heart rate 0xFF: not measured).
    public init(category: UInt8, intensity: UInt8, steps: UInt8, rawHeartRate: UInt8) {
        self.category = category
        self.intensity = intensity
        self.steps = steps
        self.rawHeartRate = rawHeartRate
    }

    /// Heart rate in bpm, nil when the band did not measure one that minute.
    public var heartRate: UInt8? { rawHeartRate == 0 || rawHeartRate == 0xFF ? nil : rawHeartRate }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        category = try reader.read(UInt8.self, field: "category")
        intensity = try reader.read(UInt8.self, field: "intensity")
        steps = try reader.read(UInt8.self, field: "steps")
        rawHeartRate = try reader.read(UInt8.self, field: "heartRate")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bytes: [category, intensity, steps, rawHeartRate])
    }
}

/// A notification on the activity data characteristic (0x0005): a packet counter (0, 1, 2, …,
/// wrapping at 255) and whole samples of 4 bytes each (four in a 17-byte packet).
public struct MiBandActivityPacket: ByteCodable, Hashable, Sendable {
    /// The packet's sequence number, wrapping at 256; a gap means a lost packet.
    public var counter: UInt8
    /// The minutes it carries, four bytes each.
    public var samples: [MiBandActivitySample]

    /// A packet from its parts.
    public init(counter: UInt8, samples: [MiBandActivitySample]) {
        self.counter = counter
        self.samples = samples
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        counter = try reader.read(UInt8.self, field: "counter")
        let start = reader.offset
        guard reader.remainingCount % 4 == 0 else {
            throw reader.invalidValue("\(reader.remainingCount) bytes are not whole 4-byte samples", field: "samples", at: start)
        }
        var samples: [MiBandActivitySample] = []
        samples.reserveCapacity(reader.remainingCount / 4)
        while !reader.isAtEnd {
            samples.append(try reader.decode(MiBandActivitySample.self, field: "samples[\(samples.count)]"))
        }
        self.samples = samples
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(counter)
        for sample in samples { try writer.encode(sample) }
    }
}
