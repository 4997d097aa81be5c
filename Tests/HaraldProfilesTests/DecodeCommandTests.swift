import Foundation
import HaraldCodec
import HaraldProfiles
import HaraldTestSupport
import Testing

/// The `harald decode` contract, run against the built executable: one JSON object on stdout and
/// exit 0; malformed input gives exit 65, nothing on stdout and one `error:` line on stderr;
/// unknown UUIDs give exit 64.
@Suite("harald decode")
struct DecodeCommandTests {
    @Test func theExecutableIsBuiltNextToTheTests() {
        #expect(HaraldExecutable.url != nil, "\(HaraldExecutable.NotFound())")
    }

    @Test(arguments: CharacteristicVector.decodable)
    func printsTheExpectedJSONObject(vector: CharacteristicVector) throws {
        let outcome = try HaraldExecutable.run(["decode", vector.uuid, vector.hex])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        #expect(outcome.stderr.isEmpty)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == 1, "stdout: \(outcome.stdout)")
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(outcome.stdout.utf8))
        guard case .object = object else { Issue.record("not an object: \(outcome.stdout)"); return }
        let problems = JSONExpectation.mismatches(expected: try #require(vector.expected), actual: object)
        #expect(problems.isEmpty, "\(problems) in \(outcome.stdout)")
    }

    @Test(arguments: CharacteristicVector.failing)
    func rejectsMalformedValuesWithStatus65(vector: CharacteristicVector) throws {
        let outcome = try HaraldExecutable.run(["decode", vector.uuid, vector.hex])
        #expect(outcome.status == 65)
        #expect(outcome.stdout.isEmpty)
        let lines = outcome.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
        #expect(lines.count == 1, "stderr: \(outcome.stderr)")
        #expect(outcome.stderr.hasPrefix("error: "))
    }

    @Test func theErrorNamesTheTypeFieldAndOffset() throws {
        let outcome = try HaraldExecutable.run(["decode", "2A37", "0155"])
        #expect(outcome.status == 65)
        #expect(outcome.stderr.contains("HeartRateMeasurement"))
        #expect(outcome.stderr.contains("'heartRate'"))
        #expect(outcome.stderr.contains("offset 1"))
    }

    @Test func specialValuesPrintAsStrings() throws {
        let outcome = try HaraldExecutable.run(["decode", "2A35", "04 FF 07 00 08 FE 07 02 08"])
        #expect(outcome.status == 0)
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(outcome.stdout.utf8))
        #expect(object["systolic"] == .string("NaN"))
        #expect(object["diastolic"] == .string("NRes"))
        #expect(object["meanArterialPressure"] == .string("+INF"))
        #expect(object["pulseRate"] == .string("-INF"))
    }

    @Test func theReservedSFLOATValuePrintsAsReserved() throws {
        // Systolic 0x0801 is IEEE-11073's reserved value; the other two are plain numbers.
        let outcome = try HaraldExecutable.run(["decode", "2A35", "00 01 08 50 00 60 00"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(outcome.stdout.utf8))
        #expect(object["systolic"] == .string("reserved"))
        #expect(object["diastolic"] == .int(80) || object["diastolic"] == .double(80))
    }

    @Test func aReservedTemperatureTypeKeepsItsCode() throws {
        let outcome = try HaraldExecutable.run(["decode", "2A1C", "04 6E 01 00 FF 0A"])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(outcome.stdout.utf8))
        #expect(object["temperatureType"] == .string("reserved"))
        #expect(object["temperatureTypeCode"] == .int(10))
    }

    @Test func intermediateTemperatureDecodesAsATemperatureMeasurement() throws {
        let hex = "06 6E 01 00 FF E7 07 0C 05 0B 32 1B 04"
        let intermediate = try HaraldExecutable.run(["decode", "2A1E", hex])
        let final = try HaraldExecutable.run(["decode", "2A1C", hex])
        #expect(intermediate.status == 0, "stderr: \(intermediate.stderr)")
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(intermediate.stdout.utf8))
        #expect(object == (try JSONDecoder().decode(JSONValue.self, from: Data(final.stdout.utf8))))
        #expect(object["temperature"]?.doubleValue.map { abs($0 - 36.6) < 1e-9 } == true)
    }

    @Test func anUnknownUUIDExitsWith64() throws {
        let outcome = try HaraldExecutable.run(["decode", "1234", "00"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("error: ") && outcome.stderr.contains("1234"))
    }

    @Test func aMalformedUUIDExitsWith64() throws {
        let outcome = try HaraldExecutable.run(["decode", "not-a-uuid", "00"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
    }

    @Test(arguments: ["0g", "0", "12 3", "zz"])
    func badHexExitsWith65AndSaysSo(hex: String) throws {
        let outcome = try HaraldExecutable.run(["decode", "2A19", hex])
        #expect(outcome.status == 65)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("error: ") && outcome.stderr.contains("hex"))
    }

    @Test(arguments: [
        ["0x2A37", "1E 55 32 00 21 00"], ["2a37", "1e:55:32:00:21:00"], ["2A37", "1e", "55", "3200", "2100"],
        ["00002A37-0000-1000-8000-00805F9B34FB", "1E5532002100"],
    ])
    func acceptsEveryUUIDSpellingAndHexSpacing(arguments: [String]) throws {
        let outcome = try HaraldExecutable.run(["decode"] + arguments)
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(outcome.stdout.utf8))
        #expect(object["heartRate"] == .integer(85))
        #expect(object["energyExpended"] == .integer(50))
    }

    @Test func aMissingValueIsAUsageError() throws {
        let outcome = try HaraldExecutable.run(["decode", "2A37"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
    }

    @Test func listNamesEveryStandardCharacteristic() throws {
        let outcome = try HaraldExecutable.run(["decode", "--list"])
        #expect(outcome.status == 0)
        for entry in CharacteristicRegistry.standard.entries {
            #expect(outcome.stdout.contains(entry.uuid.uuidString), "\(entry.name) missing")
            #expect(outcome.stdout.contains(entry.name))
        }
    }
}
