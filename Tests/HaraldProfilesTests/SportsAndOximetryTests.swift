import HaraldCodec
import HaraldProfiles
import Testing

@Suite("Cycling, running, pulse oximetry")
struct SportsAndOximetryTests {
    // MARK: Cycling speed and cadence

    @Test func wheelAndCrankDataTogether() throws {
        let value = try CSCMeasurement(decoding: [UInt8](hex: "03 39 30 00 00 E8 03 59 01 D0 07"))
        #expect(value.wheel == .init(cumulativeRevolutions: 12345, lastEventTime: 1000))
        #expect(value.crank == .init(cumulativeRevolutions: 345, lastEventTime: 2000))
    }

    @Test func bluetoothSIGPythonsCSCVectorEncodes() throws {
        let value = CSCMeasurement(
            wheel: .init(cumulativeRevolutions: 123_456, lastEventTime: 10240),
            crank: .init(cumulativeRevolutions: 321, lastEventTime: 2048))
        #expect(try value.encodedBytes() == [UInt8](hex: "03 40 E2 01 00 00 28 41 01 00 08"))
    }

    @Test func nordicsSpeedAndCadenceExample() {
        let first = CSCMeasurement(wheel: .init(cumulativeRevolutions: 10, lastEventTime: 0), crank: .init(cumulativeRevolutions: 10, lastEventTime: 0))
        let second = CSCMeasurement(wheel: .init(cumulativeRevolutions: 20, lastEventTime: 1024), crank: .init(cumulativeRevolutions: 11, lastEventTime: 1024))
        let motion = CyclingMotion(from: first, to: second, wheelCircumference: 2.34)
        #expect(abs(motion.speed! - 23.4) < 1e-9)
        #expect(abs(motion.distance! - 23.4) < 1e-9)
        #expect(abs(motion.cadence! - 60) < 1e-9)
        #expect(abs(motion.gearRatio! - 10) < 1e-9)
    }

    @Test func eventTimeRollOverAndWheelCounterWrapStillGiveTheSpeed() {
        let first = CSCMeasurement(
            wheel: .init(cumulativeRevolutions: 0xFFFF_FFFB, lastEventTime: 65000),
            crank: .init(cumulativeRevolutions: 0xFFFF, lastEventTime: 65500))
        let second = CSCMeasurement(
            wheel: .init(cumulativeRevolutions: 5, lastEventTime: 488),
            crank: .init(cumulativeRevolutions: 1, lastEventTime: 988))
        let motion = CyclingMotion(from: first, to: second, wheelCircumference: 2.34)
        #expect(motion.wheelRevolutions == 10)
        #expect(abs(motion.speed! - 23.4) < 1e-9)
        #expect(abs(motion.cadence! - 120) < 1e-9)
    }

    @Test func noNewEventMeansNoSpeedRatherThanInfinity() {
        let sample = CSCMeasurement(wheel: .init(cumulativeRevolutions: 10, lastEventTime: 5))
        let motion = CyclingMotion(from: sample, to: sample, wheelCircumference: 2.1)
        #expect(motion.speed == nil)
        #expect(motion.cadence == nil)
    }

    // MARK: Running speed and cadence

    @Test(arguments: [
        ("01 80 02 B4 55 00", 2.5, 180, 0.85 as Double?, nil as Double?),
        ("02 80 02 B4 10 27 00 00", 2.5, 180, nil, 1000.0),
        ("03 80 02 B4 55 00 10 27 00 00", 2.5, 180, 0.85, 1000.0),
        ("00 80 05 DC", 5.5, 220, nil, nil),
    ])
    func bluetoothSIGPythonsRSCVectors(hex: String, speed: Double, cadence: UInt8, stride: Double?, distance: Double?) throws {
        let bytes = try [UInt8](hex: hex)
        let value = try RSCMeasurement(decoding: bytes)
        #expect(value.speed == speed)
        #expect(value.cadence == cadence)
        #expect(value.strideLength.map { abs($0 - stride!) < 1e-9 } ?? (stride == nil))
        #expect(value.totalDistance == distance)
        #expect(try value.encodedBytes() == bytes)
    }

    @Test func rscWithDistanceFlagButTooShortIsRejected() {
        #expect(throws: ByteDecodingError.self) { try RSCMeasurement(decoding: [UInt8](hex: "07 00 03 12 56 00 01 00 00")) }
    }

    // MARK: Pulse oximetry (Spezi's PLX vectors)

    @Test(arguments: ["00 E8 F3 84 F3", "00 64 00 5A 00"])
    func continuousSpO2AndPulseInEitherEncoding(hex: String) throws {
        let value = try PLXContinuousMeasurement(decoding: [UInt8](hex: hex))
        #expect(value.normal.spO2.doubleValue == 100)
        #expect(value.normal.pulseRate.doubleValue == 90)
    }

    @Test func continuousWithStatusAndAmplitude() throws {
        let value = try PLXContinuousMeasurement(decoding: [UInt8](hex: "1C 5F 00 5A 00 20 00 00 00 00 57 F0"))
        #expect(value.normal.spO2.doubleValue == 95)
        #expect(value.measurementStatus?.bits == [.measurementOngoing])
        #expect(value.deviceAndSensorStatus?.rawValue == 0)
        #expect(abs(value.pulseAmplitudeIndex!.doubleValue - 8.7) < 1e-9)
    }

    @Test func continuousWithFastAndSlowAverages() throws {
        let bytes = try [UInt8](hex: "1F DE F3 CA F3 CA F3 5A F5 D4 F3 B2 F2 20 01 00 00 00 7A E3")
        let value = try PLXContinuousMeasurement(decoding: bytes)
        #expect(value.normal.spO2.doubleValue == 99)
        #expect(value.normal.pulseRate.doubleValue == 97)
        #expect(value.fast?.spO2.doubleValue == 97)
        #expect(value.fast?.pulseRate.doubleValue == 137)
        #expect(value.slow?.spO2.doubleValue == 98)
        #expect(value.slow?.pulseRate.doubleValue == 69)
        #expect(value.measurementStatus?.rawValue == 0x0120)
        #expect(abs(value.pulseAmplitudeIndex!.doubleValue - 8.9) < 1e-9)
        #expect(try value.encodedBytes() == bytes)
    }

    @Test func spotCheckWithEverything() throws {
        let bytes = try [UInt8](hex: "0F AC F3 BE F5 E8 07 0B 1D 17 08 39 20 40 22 00 00 66 E3")
        let value = try PLXSpotCheckMeasurement(decoding: bytes)
        #expect(value.spO2.doubleValue == 94)
        #expect(value.pulseRate.doubleValue == 147)
        #expect(value.timestamp == DateTime(year: 2024, month: 11, day: 29, hours: 23, minutes: 8, seconds: 57))
        #expect(value.measurementStatus?.rawValue == 0x4020)
        #expect(value.deviceAndSensorStatus?.bits == [.equipmentMalfunctionDetected, .lowPerfusionDetected])
        #expect(abs(value.pulseAmplitudeIndex!.doubleValue - 8.7) < 1e-9)
        #expect(try value.encodedBytes() == bytes)
    }

    @Test func plxFeaturesCarryTheSupportFieldsTheyAnnounce() throws {
        let bytes = try [UInt8](hex: "A3 00 40 10 80 01 00")
        let value = try PLXFeatures(decoding: bytes)
        #expect(value.supportedFeatures.rawValue == 0x00A3)
        #expect(value.measurementStatusSupport?.rawValue == 0x1040)
        #expect(value.deviceAndSensorStatusSupport?.rawValue == 0x000180)
        #expect(try value.encodedBytes() == bytes)
    }
}
