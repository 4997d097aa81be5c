import HaraldCodec
import HaraldCore
import HaraldProfiles
import PropertyBased
import Testing

/// Encoding a valid value and decoding the bytes gives the value back, for every type.
@Suite("Encode → decode round trips")
struct RoundTripPropertyTests {
    private static func expectRoundTrip<T: CharacteristicValue>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = try value.encodedBytes()
        let decoded = try T(decoding: bytes)
        #expect(decoded == value, "bytes \(bytes.hexString)", sourceLocation: sourceLocation)
    }

    @Test func heartRateMeasurement() async {
        await propertyCheck(input: ProfileGen.heartRate) { try Self.expectRoundTrip($0) }
    }

    @Test func bloodPressureMeasurement() async {
        await propertyCheck(input: ProfileGen.bloodPressure) { try Self.expectRoundTrip($0) }
    }

    @Test func intermediateCuffPressure() async {
        await propertyCheck(input: ProfileGen.cuffPressure) { try Self.expectRoundTrip($0) }
    }

    @Test func temperatureMeasurement() async {
        await propertyCheck(input: ProfileGen.temperature) { try Self.expectRoundTrip($0) }
    }

    @Test func intermediateTemperature() async {
        await propertyCheck(input: ProfileGen.temperature) { try Self.expectRoundTrip(IntermediateTemperature($0)) }
    }

    @Test func glucoseMeasurement() async {
        await propertyCheck(input: ProfileGen.glucose) { try Self.expectRoundTrip($0) }
    }

    @Test func weightMeasurement() async {
        await propertyCheck(input: ProfileGen.weight) { try Self.expectRoundTrip($0) }
    }

    @Test func weightScaleFeature() async {
        await propertyCheck(input: Gen.uint32()) { try Self.expectRoundTrip(WeightScaleFeature(rawValue: $0)) }
    }

    @Test func cyclingSpeedAndCadence() async {
        await propertyCheck(input: ProfileGen.csc) { try Self.expectRoundTrip($0) }
    }

    @Test func runningSpeedAndCadence() async {
        await propertyCheck(input: ProfileGen.rsc) { try Self.expectRoundTrip($0) }
    }

    @Test func plxMeasurementsAndFeatures() async {
        await propertyCheck(input: ProfileGen.plxSpotCheck) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.plxContinuous) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.plxFeatures) { try Self.expectRoundTrip($0) }
    }

    @Test func dateTimeAndCurrentTime() async {
        await propertyCheck(input: ProfileGen.dateTime) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.currentTime) { try Self.expectRoundTrip($0) }
    }

    @Test func localTimeInformation() async {
        await propertyCheck(input: ProfileGen.localTime) { try Self.expectRoundTrip($0) }
    }

    @Test func everyOneByteCodeOfTheEnumeratedCharacteristics() throws {
        for code in UInt8.min...UInt8.max {
            for entry in [
                BodySensorLocation.uuid, HeartRateControlPoint.uuid, TemperatureType.uuid, DSTOffset.uuid,
                TimeZoneOffset.uuid, DayOfWeek.uuid, BatteryLevel.uuid,
            ] {
                let outcome = try #require(CharacteristicRegistry.standard.entry(for: entry)?.roundTrip([code]))
                switch outcome {
                case .stable, .rejected: break
                default: Issue.record("\(entry) code \(code): \(outcome)")
                }
            }
        }
    }

    @Test func batteryLevelsUpTo100() async {
        await propertyCheck(input: Gen.uint8(in: 0...100)) { try Self.expectRoundTrip(BatteryLevel(percent: $0)!) }
    }

    @Test func anUnknownBatteryLevel() throws {
        try Self.expectRoundTrip(BatteryLevel.unknown)
    }

    @Test func textCharacteristics() async {
        await propertyCheck(input: ProfileGen.text) { text in
            try Self.expectRoundTrip(ManufacturerNameString(text: text))
            try Self.expectRoundTrip(DeviceName(text: text))
        }
    }

    @Test func identifiersAndDescriptors() async {
        await propertyCheck(input: ProfileGen.systemID) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.pnpID) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.presentationFormat) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: ProfileGen.serviceChanged) { try Self.expectRoundTrip($0) }
        await propertyCheck(input: Gen.uint16()) { try Self.expectRoundTrip(Appearance(rawValue: $0)) }
        await propertyCheck(input: Gen.uint16()) { try Self.expectRoundTrip(ClientCharacteristicConfiguration(rawValue: $0)) }
    }

    /// Arbitrary bytes are either rejected with a decoding error or decode to a value that
    /// survives encode → decode — for every registered decoder (a small in-test fuzz).
    @Test(arguments: CharacteristicRegistry.standard.entries.map(\.uuid.uuidString))
    func arbitraryBytesAreRejectedOrStable(uuid: String) async throws {
        let entry = try #require(CharacteristicRegistry.standard.entry(for: BluetoothUUID(uuid)!))
        await propertyCheck(count: 300, input: Gen.uint8().array(of: 0...24)) { bytes in
            let outcome = try #require(entry.roundTrip(bytes))
            switch outcome {
            case .stable, .rejected: break
            default: Issue.record("\(entry.name) \(bytes.hexString): \(outcome)")
            }
        }
    }
}
