import Foundation
import HaraldCodec
import HaraldProfiles

// Heart Rate Measurement (0x2A37) decoded into the real `HeartRateMeasurement`, three ways.

/// Sensor contact detected, energy expended and two RR intervals; half the samples carry an
/// 8-bit heart rate, half a 16-bit one (8 or 9 bytes).
let heartRateMeasurementSamples: [[UInt8]] = (0..<8).map { index in
    let wide = index >= 4
    let rate = UInt8(60 + index * 7)
    let value: [UInt8] = wide ? [rate, 0x00] : [rate]
    return [wide ? 0x1F : 0x1E] + value + [UInt8(index * 3), 0x01] + [0x00, 0x04, UInt8(index), 0x03]
}

enum HaraldHeartRateMeasurement: RecordDecoding {
    static let name = "HeartRateMeasurement/HaraldProfiles"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> HeartRateMeasurement? { try? HeartRateMeasurement(decoding: input) }
}

enum TutorialHeartRateMeasurement: RecordDecoding {
    static let name = "HeartRateMeasurement/DataReader (baseline)"
    static func input(_ bytes: [UInt8]) -> Data { Data(bytes) }
    @inline(never)
    static func decode(_ input: Data) -> HeartRateMeasurement? {
        let reader = DataReader(input)
        let flags: UInt8 = reader.readNext()
        let wide = flags & 0x01 != 0
        let rate: UInt16 = wide ? reader.readNext() : UInt16(reader.readNext() as UInt8)
        let contact: HeartRateMeasurement.SensorContact =
            flags & 0x04 == 0 ? .notSupported : flags & 0x02 != 0 ? .detected : .notDetected
        let energy: UInt16? = flags & 0x08 != 0 ? reader.readNext() as UInt16 : nil
        var rr = HaraldProfiles.RRIntervals()
        if flags & 0x10 != 0 {
            while reader.hasMoreBytes { rr.append(reader.readNext()) }
        }
        var value = HeartRateMeasurement(
            heartRate: rate, sensorContact: contact, energyExpended: energy, rrIntervals: rr,
            format: wide ? .uint16 : .uint8)
        value.reservedFlags = flags & 0xE0
        return value
    }
}

enum FloorHeartRateMeasurement: RecordDecoding {
    static let name = "HeartRateMeasurement/unchecked loop (floor)"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> HeartRateMeasurement? {
        input.withUnsafeBufferPointer { p in decode(fields: p) }
    }

    /// The decoding itself, inlined into `decode` so that the floor pays for no closure call.
    @inline(__always)
    private static func decode(fields p: UnsafeBufferPointer<UInt8>) -> HeartRateMeasurement? {
        @inline(__always) func u16(_ at: Int) -> UInt16 { UInt16(p[at]) | UInt16(p[at &+ 1]) << 8 }
        let flags = p[0]
        let wide = flags & 0x01 != 0
        let rate = wide ? u16(1) : UInt16(p[1])
        var i = wide ? 3 : 2
        let contact: HeartRateMeasurement.SensorContact =
            flags & 0x04 == 0 ? .notSupported : flags & 0x02 != 0 ? .detected : .notDetected
        var energy: UInt16?
        if flags & 0x08 != 0 {
            energy = u16(i)
            i &+= 2
        }
        var rr = HaraldProfiles.RRIntervals()
        if flags & 0x10 != 0 {
            while i &+ 1 < p.count {
                rr.append(u16(i))
                i &+= 2
            }
        }
        var value = HeartRateMeasurement(
            heartRate: rate, sensorContact: contact, energyExpended: energy, rrIntervals: rr,
            format: wide ? .uint16 : .uint8)
        value.reservedFlags = flags & 0xE0
        return value
    }
}

func registerHeartRateMeasurementBenchmarks() {
    let samples = heartRateMeasurementSamples
    requireAgreement(HaraldHeartRateMeasurement.self, TutorialHeartRateMeasurement.self, samples: samples)
    requireAgreement(HaraldHeartRateMeasurement.self, FloorHeartRateMeasurement.self, samples: samples)
    register(HaraldHeartRateMeasurement.self, samples: samples)
    register(TutorialHeartRateMeasurement.self, samples: samples)
    register(FloorHeartRateMeasurement.self, samples: samples)
}
