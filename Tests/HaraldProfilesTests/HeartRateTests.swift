import HaraldCodec
import HaraldProfiles
import Testing

@Suite("Heart Rate service")
struct HeartRateTests {
    @Test func bumblesMeasurementWithThreeSecondIntervalsDecodes() throws {
        let value = try HeartRateMeasurement(decoding: [UInt8](hex: "1F E8 03 02 00 00 0C 00 10 00 14"))
        #expect(value.heartRate == 1000)
        #expect(value.format == .uint16)
        #expect(value.sensorContact == .detected)
        #expect(value.energyExpended == 2)
        #expect(value.rrIntervals.seconds == [3.0, 4.0, 5.0])
    }

    @Test func anOddTrailingByteInTheRRTailIsAnError() {
        #expect(
            throws: ByteDecodingError(
                typeName: "HeartRateMeasurement", field: "rrIntervals", offset: 4, reason: .truncated(needed: 2, available: 1))
        ) {
            try HeartRateMeasurement(decoding: [UInt8](hex: "10 55 21 00 22"))
        }
    }

    @Test func theRRFlagNeedsAtLeastOneInterval() {
        #expect(throws: ByteDecodingError.self) { try HeartRateMeasurement(decoding: [0x10, 0x55]) }
    }

    @Test func energyExpendedAnnouncedButMissingNamesTheField() {
        #expect(
            throws: ByteDecodingError(
                typeName: "HeartRateMeasurement", field: "energyExpended", offset: 2, reason: .truncated(needed: 2, available: 1))
        ) {
            try HeartRateMeasurement(decoding: [0x08, 0x55, 0x01])
        }
    }

    @Test func contactBitWithoutSupportBitMeansNotSupported() throws {
        #expect(try HeartRateMeasurement(decoding: [0x02, 0x40]).sensorContact == .notSupported)
    }

    @Test func reservedFlagBitsSurviveARoundTrip() throws {
        let bytes: [UInt8] = [0xE0, 0x55]
        let value = try HeartRateMeasurement(decoding: bytes)
        #expect(value.reservedFlags == 0xE0)
        #expect(try value.encodedBytes() == bytes)
    }

    @Test func moreIntervalsThanTheInlineCapacityDecodeInOrder() throws {
        let raw = (1...(RRIntervals.inlineCapacity + 5)).map { UInt16($0 * 100) }
        var bytes: [UInt8] = [0x10, 0x48]
        for value in raw { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let decoded = try HeartRateMeasurement(decoding: bytes)
        #expect(Array(decoded.rrIntervals) == raw)
        #expect(try decoded.encodedBytes() == bytes)
    }

    @Test func rrIntervalsConvertExactlyToDurations() {
        let intervals: RRIntervals = [1024, 1, 1536]
        #expect(
            intervals.durations == [.seconds(1), .nanoseconds(976_562) + .init(secondsComponent: 0, attosecondsComponent: 500_000_000), .milliseconds(1500)])
    }

    @Test func rrIntervalsFromSecondsRoundToTheNearestTick() throws {
        let intervals = try #require(RRIntervals(seconds: [0.5, 1.0]))
        #expect(Array(intervals) == [512, 1024])
        #expect(RRIntervals(seconds: [70]) == nil)
        #expect(RRIntervals(seconds: [-1]) == nil)
    }

    @Test func theConvenienceInitialiserPicksTheNarrowestFormat() throws {
        #expect(try HeartRateMeasurement(heartRate: 72).encodedBytes() == [0x00, 72])
        #expect(try HeartRateMeasurement(heartRate: 300).encodedBytes() == [0x01, 0x2C, 0x01])
    }

    @Test func aRateAbove255CannotBeEncodedInTheUInt8Format() {
        let value = HeartRateMeasurement(heartRate: 256, format: .uint8)
        #expect(throws: ByteEncodingError.self) { try value.encodedBytes() }
    }

    @Test func nordicsBodySensorLocationVectorIsEarLobe() throws {
        #expect(try BodySensorLocation(decoding: [0x05]) == .earLobe)
    }

    @Test func reservedBodySensorLocationsAreKept() throws {
        let value = try BodySensorLocation(decoding: [0x07])
        #expect(value == .reserved(7))
        #expect(value.jsonValue["location"] == .string("reserved"))
        #expect(try value.encodedBytes() == [0x07])
    }

    @Test func controlPointKeepsUnsupportedCommandsForTheServerToReject() throws {
        #expect(try HeartRateControlPoint(decoding: [0x01]) == .resetEnergyExpended)
        #expect(try HeartRateControlPoint(decoding: [0x02]) == .reserved(2))
        #expect(throws: ByteEncodingError.self) { try HeartRateControlPoint.reserved(1).encodedBytes() }
    }
}
