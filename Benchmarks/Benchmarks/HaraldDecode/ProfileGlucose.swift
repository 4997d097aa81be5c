import Foundation
import HaraldCodec
import HaraldProfiles

// Glucose Measurement (0x2A18) decoded into the real `GlucoseMeasurement`, three ways.

/// Time offset, concentration (kg/L, capillary whole blood from a finger) and sensor status
/// present (flags 0x0B), 17 bytes each.
let glucoseMeasurementSamples: [[UInt8]] = (0..<8).map { index in
    let i = UInt8(index)
    return [0x0B, i, 0x00]  // flags, sequence number
        + [0xEA, 0x07, 1 + i, 10 + i, 7, 15, i]  // base time 2026-(1+i)-(10+i) 07:15:i
        + [0x05 &+ i, 0x00]  // time offset, minutes
        + [0x5A &+ i, 0xB0, 0x11]  // (90 + i) × 10⁻⁵ kg/L, capillary whole blood, finger
        + [0x00, 0x00]  // sensor status
}

enum HaraldGlucoseMeasurement: RecordDecoding {
    static let name = "GlucoseMeasurement/HaraldProfiles"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> GlucoseMeasurement? { try? GlucoseMeasurement(decoding: input) }
}

enum TutorialGlucoseMeasurement: RecordDecoding {
    static let name = "GlucoseMeasurement/DataReader (baseline)"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> GlucoseMeasurement? {
        let reader = DataReader(input)
        let flags: UInt8 = reader.readNext()
        let sequenceNumber: UInt16 = reader.readNext()
        let baseTime = DateTime(
            year: reader.readNext(), month: reader.readNext(), day: reader.readNext(), hours: reader.readNext(),
            minutes: reader.readNext(), seconds: reader.readNext())
        let timeOffset: Int16? = flags & 0x01 != 0 ? reader.readNext() as Int16 : nil
        var concentration: GlucoseMeasurement.Concentration?
        if flags & 0x02 != 0 {
            let value = MedicalFloat16(bitPattern: reader.readNext())
            let typeAndLocation: UInt8 = reader.readNext()
            concentration = GlucoseMeasurement.Concentration(
                value: value, unit: flags & 0x04 != 0 ? .molesPerLitre : .kilogramsPerLitre,
                type: GlucoseSampleType(code: typeAndLocation & 0x0F),
                sampleLocation: GlucoseSampleLocation(code: typeAndLocation >> 4))
        }
        let status: Flags<GlucoseSensorStatus, UInt16>? = flags & 0x08 != 0 ? Flags(rawValue: reader.readNext()) : nil
        var value = GlucoseMeasurement(
            sequenceNumber: sequenceNumber, baseTime: baseTime, timeOffset: timeOffset, concentration: concentration,
            sensorStatus: status, contextInformationFollows: flags & 0x10 != 0)
        value.reservedFlags = flags & 0xE0
        value.unitFlagWithoutConcentration = concentration == nil && flags & 0x04 != 0
        return value
    }
}

enum FloorGlucoseMeasurement: RecordDecoding {
    static let name = "GlucoseMeasurement/unchecked loop (floor)"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> GlucoseMeasurement? {
        input.withUnsafeBufferPointer { p in decode(fields: p) }
    }

    /// The decoding itself, inlined into `decode` so that the floor pays for no closure call.
    @inline(__always)
    private static func decode(fields p: UnsafeBufferPointer<UInt8>) -> GlucoseMeasurement? {
        @inline(__always) func u16(_ at: Int) -> UInt16 { UInt16(p[at]) | UInt16(p[at &+ 1]) << 8 }
        let flags = p[0]
        let baseTime = DateTime(year: u16(3), month: p[5], day: p[6], hours: p[7], minutes: p[8], seconds: p[9])
        var i = 10
        var timeOffset: Int16?
        if flags & 0x01 != 0 {
            timeOffset = Int16(bitPattern: u16(i))
            i &+= 2
        }
        var concentration: GlucoseMeasurement.Concentration?
        if flags & 0x02 != 0 {
            let typeAndLocation = p[i &+ 2]
            concentration = GlucoseMeasurement.Concentration(
                value: MedicalFloat16(bitPattern: u16(i)), unit: flags & 0x04 != 0 ? .molesPerLitre : .kilogramsPerLitre,
                type: GlucoseSampleType(code: typeAndLocation & 0x0F),
                sampleLocation: GlucoseSampleLocation(code: typeAndLocation >> 4))
            i &+= 3
        }
        let status: Flags<GlucoseSensorStatus, UInt16>? = flags & 0x08 != 0 ? Flags(rawValue: u16(i)) : nil
        var value = GlucoseMeasurement(
            sequenceNumber: u16(1), baseTime: baseTime, timeOffset: timeOffset, concentration: concentration,
            sensorStatus: status, contextInformationFollows: flags & 0x10 != 0)
        value.reservedFlags = flags & 0xE0
        value.unitFlagWithoutConcentration = concentration == nil && flags & 0x04 != 0
        return value
    }
}

func registerGlucoseMeasurementBenchmarks() {
    let samples = glucoseMeasurementSamples
    requireAgreement(HaraldGlucoseMeasurement.self, TutorialGlucoseMeasurement.self, samples: samples)
    requireAgreement(HaraldGlucoseMeasurement.self, FloorGlucoseMeasurement.self, samples: samples)
    register(HaraldGlucoseMeasurement.self, samples: samples)
    register(TutorialGlucoseMeasurement.self, samples: samples)
    register(FloorGlucoseMeasurement.self, samples: samples)
}
