import HaraldCodec
import HaraldProfiles
import HaraldTerminal
import Testing

@Suite("Sparklines and numeric readings")
struct SparklineTests {
    @Test func theLowestValueIsTheShortestBarAndTheHighestTheTallest() {
        #expect(Sparkline.render([1.0, 8.0], width: 2) == "▁█")
    }

    @Test func valuesAreScaledBetweenTheLowestAndHighestShown() {
        #expect(Sparkline.render([0, 1, 2, 3, 4, 5, 6, 7], width: 8) == "▁▂▃▄▅▆▇█")
    }

    @Test func onlyTheLastWidthValuesAreShownPaddedOnTheLeft() {
        #expect(Sparkline.render([100, 1, 2], width: 2) == "▁█")
        #expect(Sparkline.render([5.5], width: 3) == "  ▅")
    }

    @Test func equalValuesDrawHalfHeightBars() {
        #expect(Sparkline.render([60, 60, 60], width: 3) == "▅▅▅")
    }

    @Test func noValuesDrawBlankSpace() {
        #expect(Sparkline.render([Double](), width: 4) == "    ")
    }

    @Test func aBareNumberIsItsOwnReading() {
        #expect(NumericReading(.integer(42)) == NumericReading(field: nil, value: 42))
    }

    @Test func theOnlyNumericFieldIsTheReading() {
        #expect(NumericReading(.fields(["level": .int(87)])) == NumericReading(field: "level", value: 87))
    }

    @Test func theFieldThatNamesTheCharacteristicWinsOverOthers() {
        let measurement = JSONValue.fields([
            "energyExpended": .int(300), "heartRate": .int(72), "contact": .bool(true), "rrIntervals": .array([.number(0.8)]),
        ])
        #expect(NumericReading(measurement, characteristicName: "Heart Rate Measurement") == NumericReading(field: "heartRate", value: 72))
    }

    @Test func withoutANamingFieldTheFirstNumericFieldInKeyOrderIsTheReading() {
        let value = JSONValue.fields(["systolic": .int(120), "diastolic": .int(80)])
        #expect(NumericReading(value, characteristicName: "Blood Pressure Measurement")?.field == "diastolic")
    }

    @Test func aValueWithoutNumbersHasNoReading() {
        #expect(NumericReading(.fields(["text": .string("Harald")])) == nil)
        #expect(NumericReading(.string("x")) == nil)
    }
}

@Suite("Numeric readings of real decoded values")
struct DecodedReadingTests {
    @Test func aFieldEndingTheCharacteristicNameIsItsReading() {
        let value = JSONValue.fields(["calories": .int(12), "meters": .int(300), "steps": .int(409)])
        #expect(NumericReading(value, characteristicName: "Mi Band Realtime Steps")?.field == "steps")
    }

    @Test func aDecodedTemperatureMeasurementReadsAsItsTemperature() throws {
        // Flags 0 (Celsius, nothing else), 37.0 as a FLOAT: mantissa 370, exponent -1.
        let decoded = try #require(try CharacteristicRegistry.standard.describe([0x00, 0x72, 0x01, 0x00, 0xFF], as: BluetoothUUID(0x2A1C)))
        #expect(NumericReading(decoded, characteristicName: "Temperature Measurement") == NumericReading(field: "temperature", value: 37))
    }
}
