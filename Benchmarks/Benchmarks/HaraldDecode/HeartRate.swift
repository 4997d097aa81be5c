import Foundation
import HaraldCodec

// A Heart Rate Measurement-shaped record: flags (u8), heart rate (u8 or u16 by flag bit 0),
// energy expended (u16, bit 3) and three RR intervals (u16 each, bit 4), decoded three ways.

/// Bits of the heart-rate flags byte.
enum HeartRateBit: Int, FlagBit {
    case valueIsUInt16 = 0
    case energyExpendedPresent = 3
    case rrIntervalsPresent = 4
}

/// Three RR intervals, in 1/1024 s (a fixed count keeps the record free of heap storage).
struct RRIntervals: Equatable {
    var first: UInt16, second: UInt16, third: UInt16
}

/// The decoded record, shared by all three ways.
struct HeartRateRecord: Equatable, ByteDecodable {
    var flags: Flags<HeartRateBit, UInt8>
    /// Beats per minute.
    var heartRate: UInt16
    /// Kilojoules.
    var energyExpended: UInt16?
    var rrIntervals: RRIntervals?

    init(flags: Flags<HeartRateBit, UInt8>, heartRate: UInt16, energyExpended: UInt16?, rrIntervals: RRIntervals?) {
        self.flags = flags
        self.heartRate = heartRate
        self.energyExpended = energyExpended
        self.rrIntervals = rrIntervals
    }

    /// The HaraldCodec way.
    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        flags = try reader.readFlags(HeartRateBit.self, as: UInt8.self)
        heartRate =
            flags.contains(.valueIsUInt16)
            ? try reader.read(UInt16.self, field: "heartRate")
            : UInt16(try reader.read(UInt8.self, field: "heartRate"))
        energyExpended = flags.contains(.energyExpendedPresent) ? try reader.read(UInt16.self, field: "energyExpended") : nil
        rrIntervals =
            flags.contains(.rrIntervalsPresent)
            ? RRIntervals(
                first: try reader.read(UInt16.self, field: "rrIntervals"),
                second: try reader.read(UInt16.self, field: "rrIntervals"),
                third: try reader.read(UInt16.self, field: "rrIntervals"))
            : nil
    }
}

/// Every field present; half the samples carry an 8-bit heart rate, half a 16-bit one.
let heartRateSamples: [[UInt8]] = (0..<8).map { index in
    let wide = index >= 4
    let rate = UInt8(60 + index * 7)
    let value: [UInt8] = wide ? [rate, 0x00] : [rate]
    let energy = UInt8(index * 3)
    return [wide ? 0x19 : 0x18] + value + [energy, 0x01, 0x00, 0x04, UInt8(index), 0x03, 0xFF, 0x03]
}

enum HaraldHeartRate: RecordDecoding {
    static let name = "HeartRate/HaraldCodec"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> HeartRateRecord? { try? HeartRateRecord(decoding: input) }
}

/// The HaraldCodec way from `Data`, as CoreBluetooth hands a characteristic value over.
enum HaraldHeartRateFromData: RecordDecoding {
    static let name = "HeartRate/HaraldCodec from Data"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> HeartRateRecord? { try? HeartRateRecord(decoding: input) }
}

enum TutorialHeartRate: RecordDecoding {
    static let name = "HeartRate/DataReader (baseline)"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> HeartRateRecord? {
        let reader = DataReader(input)
        let flags: UInt8 = reader.readNext()
        let rate: UInt16 = flags & 0x01 != 0 ? reader.readNext() : UInt16(reader.readNext() as UInt8)
        let energy: UInt16? = flags & 0x08 != 0 ? reader.readNext() as UInt16 : nil
        var rr: RRIntervals?
        if flags & 0x10 != 0 {
            rr = RRIntervals(first: reader.readNext(), second: reader.readNext(), third: reader.readNext())
        }
        return HeartRateRecord(flags: Flags(rawValue: flags), heartRate: rate, energyExpended: energy, rrIntervals: rr)
    }
}

enum FloorHeartRate: RecordDecoding {
    static let name = "HeartRate/unchecked loop (floor)"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> HeartRateRecord? {
        input.withUnsafeBufferPointer { p in decode(fields: p) }
    }

    /// The decoding itself, inlined into `decode` so that the floor pays for no closure call.
    @inline(__always)
    private static func decode(fields p: UnsafeBufferPointer<UInt8>) -> HeartRateRecord? {
        let flags = p[0]
        var i = 1
        let rate: UInt16
        if flags & 0x01 != 0 {
            rate = UInt16(p[i]) | UInt16(p[i &+ 1]) << 8
            i &+= 2
        } else {
            rate = UInt16(p[i])
            i &+= 1
        }
        var energy: UInt16?
        if flags & 0x08 != 0 {
            energy = UInt16(p[i]) | UInt16(p[i &+ 1]) << 8
            i &+= 2
        }
        var rr: RRIntervals?
        if flags & 0x10 != 0 {
            rr = RRIntervals(
                first: UInt16(p[i]) | UInt16(p[i &+ 1]) << 8,
                second: UInt16(p[i &+ 2]) | UInt16(p[i &+ 3]) << 8,
                third: UInt16(p[i &+ 4]) | UInt16(p[i &+ 5]) << 8)
        }
        return HeartRateRecord(flags: Flags(rawValue: flags), heartRate: rate, energyExpended: energy, rrIntervals: rr)
    }
}

func registerHeartRateBenchmarks() {
    requireAgreement(HaraldHeartRate.self, TutorialHeartRate.self, samples: heartRateSamples)
    requireAgreement(HaraldHeartRate.self, FloorHeartRate.self, samples: heartRateSamples)
    requireAgreement(HaraldHeartRate.self, HaraldHeartRateFromData.self, samples: heartRateSamples)
    register(HaraldHeartRate.self, samples: heartRateSamples)
    register(HaraldHeartRateFromData.self, samples: heartRateSamples)
    register(TutorialHeartRate.self, samples: heartRateSamples)
    register(FloorHeartRate.self, samples: heartRateSamples)
}
