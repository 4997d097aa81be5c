import Foundation
import HaraldCodec
import HaraldProfiles
import Testing

@Suite("Battery, thermometer, blood pressure, glucose, weight")
struct HealthMeasurementTests {
    // MARK: Battery

    @Test func batteryLevelsAbove100CannotBeMadeOrEncoded() {
        #expect(BatteryLevel(percent: 101) == nil)
        var level = BatteryLevel(percent: 50)!
        level.percent = 101
        #expect(throws: ByteEncodingError.self) { try level.encodedBytes() }
    }

    @Test func batteryLevel0xFFDecodesAsNotKnown() throws {
        let level = try BatteryLevel(decoding: [0xFF])
        #expect(level.percent == nil)
        #expect(level == .unknown)
    }

    @Test func anUnknownBatteryLevelEncodesAs0xFF() throws {
        #expect(try BatteryLevel.unknown.encodedBytes() == [0xFF])
    }

    @Test func anUnknownBatteryLevelDescribesItsLevelAsNull() throws {
        #expect(try CharacteristicRegistry.standard.describe([0xFF], as: "2A19") == .object(["level": .null]))
    }

    @Test(arguments: [UInt8(101), 150, 254])
    func reservedBatteryLevelsOtherThan0xFFAreRejectedNamingTheField(code: UInt8) {
        #expect {
            try BatteryLevel(decoding: [code])
        } throws: { error in
            guard let error = error as? ByteDecodingError, case .invalidValue = error.reason else { return false }
            return error.typeName == "BatteryLevel" && error.field == "level" && error.offset == 0
        }
    }

    // MARK: Thermometer

    @Test func nordicsTemperatureTypeVectorIsEar() throws {
        #expect(try TemperatureType(decoding: [0x03]) == .ear)
    }

    @Test func fahrenheitTemperaturesConvertToCelsius() throws {
        let value = try TemperatureMeasurement(decoding: [UInt8](hex: "01 62 03 00 FF"))  // 86.6 °F
        #expect(value.unit == .fahrenheit)
        #expect(abs(value.celsius - 30.333333333) < 1e-6)
    }

    @Test func specialTemperatureValuesPrintByName() throws {
        let value = try TemperatureMeasurement(decoding: [UInt8](hex: "00 FF FF 7F 00"))
        #expect(value.jsonValue["temperature"] == .string("NaN"))
        let nres = try TemperatureMeasurement(decoding: [UInt8](hex: "00 00 00 80 00"))
        #expect(nres.jsonValue["temperature"] == .string("NRes"))
    }

    @Test func intermediateTemperatureReadsTheTemperatureMeasurementForm() throws {
        // 36.6 °C with a time stamp and a type: FLOAT 0xFF00016E, 2023-12-05 11:50:27, finger (0x04).
        let bytes = try [UInt8](hex: "06 6E 01 00 FF E7 07 0C 05 0B 32 1B 04")
        let intermediate = try IntermediateTemperature(decoding: bytes)
        let measurement = try TemperatureMeasurement(decoding: bytes)
        #expect(intermediate.measurement == measurement)
        #expect(intermediate.celsius == measurement.celsius)
        #expect(intermediate.timestamp == measurement.timestamp)
        #expect(try intermediate.encodedBytes() == bytes)
    }

    @Test func intermediateTemperatureErrorsNameTheIntermediateType() {
        #expect {
            try IntermediateTemperature(decoding: [UInt8](hex: "02 6E 01 00 FF E7 07"))
        } throws: { error in
            let error = error as? ByteDecodingError
            return error?.typeName == "IntermediateTemperature" && error?.field == "timestamp.month" && error?.offset == 7
        }
    }

    // MARK: Blood pressure

    @Test func nordicsKilopascalVectorDecodes() throws {
        let value = try BloodPressureMeasurement(decoding: [UInt8](hex: "15 BD F0 0B 00 9F F0 3C 00 12 00"))
        #expect(value.unit == .kPa)
        #expect(abs(value.systolic.doubleValue - 18.9) < 1e-9)
        #expect(value.diastolic.doubleValue == 11)
        #expect(abs(value.meanArterialPressure.doubleValue - 15.9) < 1e-9)
        #expect(value.pulseRate?.doubleValue == 60)
        let status = try #require(value.measurementStatus)
        #expect(status.contains(.cuffTooLoose))
        #expect(!status.contains(.bodyMovementDetected))
        #expect(status.pulseRateRange == .belowLowerLimit)
    }

    @Test func measurementStatusBitsOfNordicsFirstVector() throws {
        let status = BloodPressureMeasurementStatus(rawValue: 0x0027)
        #expect(status.contains(.bodyMovementDetected))
        #expect(status.contains(.cuffTooLoose))
        #expect(status.contains(.irregularPulseDetected))
        #expect(status.contains(.improperMeasurementPosition))
        #expect(status.pulseRateRange == .withinRange)
    }

    @Test func intermediateCuffPressureReadsTheFirstFieldAndWritesNaNForTheOthers() throws {
        let value = try IntermediateCuffPressure(decoding: [UInt8](hex: "04 8A 00 58 00 78 00 48 00"))
        #expect(value.currentCuffPressure.doubleValue == 138)
        #expect(value.pulseRate?.doubleValue == 72)
        #expect(try value.encodedBytes() == [UInt8](hex: "04 8A 00 FF 07 FF 07 48 00"))
    }

    // MARK: Glucose

    @Test func glucoseTypeAndLocationComeFromTheNibbles() throws {
        let value = try GlucoseMeasurement(decoding: [UInt8](hex: "1b0100e307021b0b0a1efbff1e00120501"))
        let concentration = try #require(value.concentration)
        #expect(concentration.type == .capillaryPlasma)
        #expect(concentration.sampleLocation == .finger)
        #expect(concentration.unit == .kilogramsPerLitre)
        #expect(value.timeOffset == -5)
        let status = try #require(value.sensorStatus)
        #expect(status.bits == [.deviceBatteryLow, .sampleSizeInsufficient, .sensorTemperatureTooLow])
    }

    @Test func glucoseMeasurementTimeAddsTheOffsetToTheBaseTime() throws {
        let utc = TimeZone(identifier: "UTC")!
        let value = try GlucoseMeasurement(decoding: [UInt8](hex: "1b0100e307021b0b0a1efbff1e00120501"))
        let expected = DateComponents(
            calendar: Calendar(identifier: .gregorian), timeZone: utc,
            year: 2019, month: 2, day: 27, hour: 11, minute: 5, second: 30
        ).date
        #expect(value.measurementDate(in: utc) == expected)
    }

    @Test func glucoseInMolesPerLitreConvertsToMillimoles() throws {
        // Flags 0x06: concentration in mol/L; 5.5 mmol/L = 55 × 10⁻⁴ mol/L (SFLOAT 0xC037).
        let value = try GlucoseMeasurement(decoding: [UInt8](hex: "06 0200 e707 0c19 0e1e 2d 37c0 11"))
        let concentration = try #require(value.concentration)
        #expect(concentration.unit == .molesPerLitre)
        #expect(abs(try #require(concentration.millimolesPerLitre) - 5.5) < 1e-9)
        #expect(concentration.milligramsPerDecilitre == nil)
    }

    @Test func reservedGlucoseCodesAreKept() throws {
        let value = try GlucoseMeasurement(decoding: [UInt8](hex: "02 0100 e307 021b 0b0a 1e 1e00 0b"))
        #expect(value.concentration?.type == .reserved(11))
        #expect(value.concentration?.sampleLocation == .reserved(0))
    }

    // MARK: Weight

    @Test(arguments: [
        ("00 B0 36", 70.0, WeightMeasurement.UnitSystem.si),
        ("01 54 3D", 157.0, .imperial),
    ])
    func weightsUseTheSpecifiedResolution(hex: String, weight: Double, units: WeightMeasurement.UnitSystem) throws {
        let value = try WeightMeasurement(decoding: [UInt8](hex: hex))
        #expect(value.units == units)
        #expect(abs(try #require(value.weight) - weight) < 1e-9)
    }

    @Test func weightWithTimestamp() throws {
        let value = try WeightMeasurement(decoding: [UInt8](hex: "02 B0 36 E7 07 0C 19 0E 1E 2D"))
        #expect(value.timestamp == DateTime(year: 2023, month: 12, day: 25, hours: 14, minutes: 30, seconds: 45))
    }

    @Test func weightWithUserBMIAndHeight() throws {
        let value = try WeightMeasurement(decoding: [UInt8](hex: "0C B0 36 05 F5 00 D6 06"))
        #expect(value.userID == 5)
        #expect(abs(try #require(value.bmi) - 24.5) < 1e-9)
        #expect(abs(try #require(value.height) - 1.75) < 1e-9)
    }

    @Test func imperialWeightWithEverything() throws {
        let value = try WeightMeasurement(decoding: [UInt8](hex: "0F 54 3D E7 07 0C 19 0E 1E 2D 03 F5 00 A8 02"))
        #expect(value.userID == 3)
        #expect(abs(try #require(value.height) - 68.0) < 1e-9)
        #expect(value.jsonValue["heightUnit"] == .string("in"))
    }

    @Test func anUnsuccessfulWeighingHasNoWeight() throws {
        let value = try WeightMeasurement(decoding: [0x00, 0xFF, 0xFF])
        #expect(value.isUnsuccessful)
        #expect(value.weight == nil)
        #expect(value.jsonValue["measurementUnsuccessful"] == .bool(true))
    }

    @Test func weightCountedInTheFeaturesResolutionSteps() throws {
        let value = WeightMeasurement(rawWeight: 120)
        #expect(abs(try #require(value.weight(countingIn: .notSpecified)) - 0.6) < 1e-9)
        #expect(abs(try #require(value.weight(countingIn: .tenGrams)) - 1.2) < 1e-9)
        #expect(abs(try #require(value.weight(countingIn: .halfKilogram)) - 60) < 1e-9)
    }

    @Test func weightScaleFeatureSplitsItsResolutionFields() throws {
        let feature = try WeightScaleFeature(decoding: [UInt8](hex: "BE 01 00 00"))  // 0x1BE
        #expect(feature.features.bits == [.multipleUsersSupported, .bmiSupported])
        #expect(feature.weightResolution == .fiveGrams)
        #expect(feature.heightResolution == .millimetre)
        #expect(
            WeightScaleFeature(
                features: [.multipleUsersSupported, .bmiSupported], weightResolution: .fiveGrams,
                heightResolution: .millimetre) == feature)
    }

    @Test func bmiWithoutHeightCannotBeEncoded() {
        let value = WeightMeasurement(rawWeight: 1, rawBMI: 245, rawHeight: nil)
        #expect(throws: ByteEncodingError.self) { try value.encodedBytes() }
    }
}
