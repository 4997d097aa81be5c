import Foundation
import HaraldCodec

// A Blood Pressure Measurement-shaped record: flags (u8); systolic, diastolic and mean arterial
// pressure (SFLOAT each); a 7-byte date-time (bit 1); pulse rate (SFLOAT, bit 2); user ID (u8,
// bit 3); measurement status (u16, bit 4), decoded three ways.

/// Bits of the blood-pressure flags byte.
enum BloodPressureBit: Int, FlagBit {
    case unitsKilopascal = 0
    case timestampPresent = 1
    case pulseRatePresent = 2
    case userIDPresent = 3
    case measurementStatusPresent = 4
}

/// The 7-byte date-time: year (u16), month, day, hours, minutes, seconds.
struct RecordDate: Equatable, ByteDecodable {
    var year: UInt16
    var month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8

    init(year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8) {
        self.year = year
        self.month = month
        self.day = day
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        year = try reader.read(UInt16.self, field: "year")
        month = try reader.read(UInt8.self, field: "month")
        day = try reader.read(UInt8.self, field: "day")
        hours = try reader.read(UInt8.self, field: "hours")
        minutes = try reader.read(UInt8.self, field: "minutes")
        seconds = try reader.read(UInt8.self, field: "seconds")
    }
}

/// The decoded record, shared by all three ways.
struct BloodPressureRecord: Equatable, ByteDecodable {
    var flags: Flags<BloodPressureBit, UInt8>
    var systolic: MedicalFloat16
    var diastolic: MedicalFloat16
    var meanArterialPressure: MedicalFloat16
    var timestamp: RecordDate?
    var pulseRate: MedicalFloat16?
    var userID: UInt8?
    var measurementStatus: UInt16?

    init(
        flags: Flags<BloodPressureBit, UInt8>, systolic: MedicalFloat16, diastolic: MedicalFloat16,
        meanArterialPressure: MedicalFloat16, timestamp: RecordDate?, pulseRate: MedicalFloat16?, userID: UInt8?,
        measurementStatus: UInt16?
    ) {
        self.flags = flags
        self.systolic = systolic
        self.diastolic = diastolic
        self.meanArterialPressure = meanArterialPressure
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.measurementStatus = measurementStatus
    }

    /// The HaraldCodec way.
    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        flags = try reader.readFlags(BloodPressureBit.self, as: UInt8.self)
        systolic = try reader.decode(MedicalFloat16.self, field: "systolic")
        diastolic = try reader.decode(MedicalFloat16.self, field: "diastolic")
        meanArterialPressure = try reader.decode(MedicalFloat16.self, field: "meanArterialPressure")
        timestamp = flags.contains(.timestampPresent) ? try reader.decode(RecordDate.self, field: "timestamp") : nil
        pulseRate = flags.contains(.pulseRatePresent) ? try reader.decode(MedicalFloat16.self, field: "pulseRate") : nil
        userID = flags.contains(.userIDPresent) ? try reader.read(UInt8.self, field: "userID") : nil
        measurementStatus =
            flags.contains(.measurementStatusPresent)
            ? try reader.read(UInt16.self, field: "measurementStatus") : nil
    }
}

/// Every field present (flags 0x1E, mmHg), 19 bytes each.
let bloodPressureSamples: [[UInt8]] = (0..<8).map { index in
    let i = UInt8(index)
    return [0x1E, 120 &+ i, 0x00, 80 &+ i, 0x00, 93, 0x00]  // pressures, exponent 0
        + [0xEA, 0x07, 1 + i, 10 + i, 8, 30, i]  // 2026-(1+i)-(10+i) 08:30:i
        + [0xC2 &+ i, 0xF2]  // pulse 706 + i ×10⁻¹
        + [i, 0x01 &+ i, 0x00]  // user, status
}

enum HaraldBloodPressure: RecordDecoding {
    static let name = "BloodPressure/HaraldCodec"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> BloodPressureRecord? { try? BloodPressureRecord(decoding: input) }
}

/// The HaraldCodec way from `Data`, as CoreBluetooth hands a characteristic value over.
enum HaraldBloodPressureFromData: RecordDecoding {
    static let name = "BloodPressure/HaraldCodec from Data"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> BloodPressureRecord? { try? BloodPressureRecord(decoding: input) }
}

enum TutorialBloodPressure: RecordDecoding {
    static let name = "BloodPressure/DataReader (baseline)"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> BloodPressureRecord? {
        let reader = DataReader(input)
        let flags: UInt8 = reader.readNext()
        let systolic = MedicalFloat16(bitPattern: reader.readNext())
        let diastolic = MedicalFloat16(bitPattern: reader.readNext())
        let meanArterialPressure = MedicalFloat16(bitPattern: reader.readNext())
        var timestamp: RecordDate?
        if flags & 0x02 != 0 {
            timestamp = RecordDate(
                year: reader.readNext(), month: reader.readNext(), day: reader.readNext(), hours: reader.readNext(),
                minutes: reader.readNext(), seconds: reader.readNext())
        }
        let pulseRate = flags & 0x04 != 0 ? MedicalFloat16(bitPattern: reader.readNext()) : nil
        let userID: UInt8? = flags & 0x08 != 0 ? reader.readNext() as UInt8 : nil
        let status: UInt16? = flags & 0x10 != 0 ? reader.readNext() as UInt16 : nil
        return BloodPressureRecord(
            flags: Flags(rawValue: flags), systolic: systolic, diastolic: diastolic,
            meanArterialPressure: meanArterialPressure, timestamp: timestamp, pulseRate: pulseRate, userID: userID,
            measurementStatus: status)
    }
}

enum FloorBloodPressure: RecordDecoding {
    static let name = "BloodPressure/unchecked loop (floor)"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> BloodPressureRecord? {
        input.withUnsafeBufferPointer { p in decode(fields: p) }
    }

    /// The decoding itself, inlined into `decode` so that the floor pays for no closure call.
    @inline(__always)
    private static func decode(fields p: UnsafeBufferPointer<UInt8>) -> BloodPressureRecord? {
        @inline(__always) func u16(_ at: Int) -> UInt16 { UInt16(p[at]) | UInt16(p[at &+ 1]) << 8 }
        let flags = p[0]
        var i = 7
        var timestamp: RecordDate?
        if flags & 0x02 != 0 {
            timestamp = RecordDate(
                year: u16(i), month: p[i &+ 2], day: p[i &+ 3], hours: p[i &+ 4], minutes: p[i &+ 5],
                seconds: p[i &+ 6])
            i &+= 7
        }
        var pulseRate: MedicalFloat16?
        if flags & 0x04 != 0 {
            pulseRate = MedicalFloat16(bitPattern: u16(i))
            i &+= 2
        }
        var userID: UInt8?
        if flags & 0x08 != 0 {
            userID = p[i]
            i &+= 1
        }
        let status: UInt16? = flags & 0x10 != 0 ? u16(i) : nil
        return BloodPressureRecord(
            flags: Flags(rawValue: flags), systolic: MedicalFloat16(bitPattern: u16(1)),
            diastolic: MedicalFloat16(bitPattern: u16(3)), meanArterialPressure: MedicalFloat16(bitPattern: u16(5)),
            timestamp: timestamp, pulseRate: pulseRate, userID: userID, measurementStatus: status)
    }
}

func registerBloodPressureBenchmarks() {
    requireAgreement(HaraldBloodPressure.self, TutorialBloodPressure.self, samples: bloodPressureSamples)
    requireAgreement(HaraldBloodPressure.self, FloorBloodPressure.self, samples: bloodPressureSamples)
    requireAgreement(HaraldBloodPressure.self, HaraldBloodPressureFromData.self, samples: bloodPressureSamples)
    register(HaraldBloodPressure.self, samples: bloodPressureSamples)
    register(HaraldBloodPressureFromData.self, samples: bloodPressureSamples)
    register(TutorialBloodPressure.self, samples: bloodPressureSamples)
    register(FloorBloodPressure.self, samples: bloodPressureSamples)
}
