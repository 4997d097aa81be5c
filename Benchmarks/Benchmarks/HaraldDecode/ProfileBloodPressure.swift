import Foundation
import HaraldCodec
import HaraldProfiles

// Blood Pressure Measurement (0x2A35) decoded into the real `BloodPressureMeasurement`, three ways.

/// Every field present (flags 0x1E, mmHg): three pressures, a valid date-time, pulse rate, user
/// and measurement status, 19 bytes each.
let bloodPressureMeasurementSamples: [[UInt8]] = (0..<8).map { index in
    let i = UInt8(index)
    return [0x1E, 120 &+ i, 0x00, 80 &+ i, 0x00, 93, 0x00]  // pressures, exponent 0
        + [0xEA, 0x07, 1 + i, 10 + i, 8, 30, i]  // 2026-(1+i)-(10+i) 08:30:i
        + [0xC2 &+ i, 0xF2]  // pulse 706 + i ×10⁻¹
        + [i, 0x01 &+ i, 0x00]  // user, status
}

enum HaraldBloodPressureMeasurement: RecordDecoding {
    static let name = "BloodPressureMeasurement/HaraldProfiles"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> BloodPressureMeasurement? { try? BloodPressureMeasurement(decoding: input) }
}

enum TutorialBloodPressureMeasurement: RecordDecoding {
    static let name = "BloodPressureMeasurement/DataReader (baseline)"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> BloodPressureMeasurement? {
        let reader = DataReader(input)
        let flags: UInt8 = reader.readNext()
        let systolic = MedicalFloat16(bitPattern: reader.readNext())
        let diastolic = MedicalFloat16(bitPattern: reader.readNext())
        let meanArterialPressure = MedicalFloat16(bitPattern: reader.readNext())
        var timestamp: DateTime?
        if flags & 0x02 != 0 {
            timestamp = DateTime(
                year: reader.readNext(), month: reader.readNext(), day: reader.readNext(), hours: reader.readNext(),
                minutes: reader.readNext(), seconds: reader.readNext())
        }
        let pulseRate = flags & 0x04 != 0 ? MedicalFloat16(bitPattern: reader.readNext()) : nil
        let userID: UInt8? = flags & 0x08 != 0 ? reader.readNext() as UInt8 : nil
        let status = flags & 0x10 != 0 ? BloodPressureMeasurementStatus(rawValue: reader.readNext()) : nil
        var value = BloodPressureMeasurement(
            systolic: systolic, diastolic: diastolic, meanArterialPressure: meanArterialPressure,
            unit: flags & 0x01 != 0 ? .kPa : .mmHg, timestamp: timestamp, pulseRate: pulseRate, userID: userID,
            measurementStatus: status)
        value.reservedFlags = flags & 0xE0
        return value
    }
}

enum FloorBloodPressureMeasurement: RecordDecoding {
    static let name = "BloodPressureMeasurement/unchecked loop (floor)"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> BloodPressureMeasurement? {
        input.withUnsafeBufferPointer { p in decode(fields: p) }
    }

    /// The decoding itself, inlined into `decode` so that the floor pays for no closure call.
    @inline(__always)
    private static func decode(fields p: UnsafeBufferPointer<UInt8>) -> BloodPressureMeasurement? {
        @inline(__always) func u16(_ at: Int) -> UInt16 { UInt16(p[at]) | UInt16(p[at &+ 1]) << 8 }
        let flags = p[0]
        var i = 7
        var timestamp: DateTime?
        if flags & 0x02 != 0 {
            timestamp = DateTime(
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
        let status = flags & 0x10 != 0 ? BloodPressureMeasurementStatus(rawValue: u16(i)) : nil
        var value = BloodPressureMeasurement(
            systolic: MedicalFloat16(bitPattern: u16(1)), diastolic: MedicalFloat16(bitPattern: u16(3)),
            meanArterialPressure: MedicalFloat16(bitPattern: u16(5)), unit: flags & 0x01 != 0 ? .kPa : .mmHg,
            timestamp: timestamp, pulseRate: pulseRate, userID: userID, measurementStatus: status)
        value.reservedFlags = flags & 0xE0
        return value
    }
}

func registerBloodPressureMeasurementBenchmarks() {
    let samples = bloodPressureMeasurementSamples
    requireAgreement(HaraldBloodPressureMeasurement.self, TutorialBloodPressureMeasurement.self, samples: samples)
    requireAgreement(HaraldBloodPressureMeasurement.self, FloorBloodPressureMeasurement.self, samples: samples)
    register(HaraldBloodPressureMeasurement.self, samples: samples)
    register(TutorialBloodPressureMeasurement.self, samples: samples)
    register(FloorBloodPressureMeasurement.self, samples: samples)
}
