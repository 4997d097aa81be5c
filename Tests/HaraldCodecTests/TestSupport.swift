import HaraldCodec

// Small values and inputs shared by the codec tests.

/// A byte sequence that offers no contiguous storage, so readers must take their copying path.
struct NonContiguousBytes: Sequence {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
}

/// A date-like nested value: year (u16), month (u8, 1…12), day (u8).
struct Timestamp: ByteDecodable, Equatable {
    var year: UInt16
    var month: UInt8
    var day: UInt8

    init(year: UInt16, month: UInt8, day: UInt8) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        year = try reader.read(UInt16.self, field: "year")
        let monthOffset = reader.offset
        month = try reader.read(UInt8.self, field: "month")
        guard (1...12).contains(month) else {
            throw reader.invalidValue("month \(month) is not 1…12", field: "month", at: monthOffset)
        }
        day = try reader.read(UInt8.self, field: "day")
    }
}

/// A record with a one-byte kind followed by a nested ``Timestamp``.
struct StampedRecord: ByteDecodable, Equatable {
    var kind: UInt8
    var timestamp: Timestamp

    init(kind: UInt8, timestamp: Timestamp) {
        self.kind = kind
        self.timestamp = timestamp
    }

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        kind = try reader.read(UInt8.self, field: "kind")
        timestamp = try reader.decode(Timestamp.self, field: "timestamp")
    }
}

/// The heart-rate-measurement shape: flags, an 8- or 16-bit rate, optional energy expended.
struct HeartRateMeasurement: ByteDecodable {
    enum Flag: Int, FlagBit {
        case rateIsUInt16 = 0
        case energyExpendedPresent = 3
    }

    var rate: UInt16
    var energyExpended: UInt16?

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        rate =
            flags.contains(.rateIsUInt16)
            ? try reader.read(UInt16.self, field: "heartRate")
            : UInt16(try reader.read(UInt8.self, field: "heartRate"))
        energyExpended =
            flags.contains(.energyExpendedPresent)
            ? try reader.read(UInt16.self, field: "energyExpended") : nil
    }
}

/// Captures the decoding error `body` throws, or nil when it returns normally.
func decodingError<T>(_ body: () throws(ByteDecodingError) -> T) -> ByteDecodingError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// Runs `body` with a reader over `bytes`, for tests of single reader calls.
func reading<T>(_ bytes: [UInt8], _ body: (inout ByteReader) throws(ByteDecodingError) -> T) throws(ByteDecodingError) -> T {
    try ByteReader.withReader(bytes, body)
}
