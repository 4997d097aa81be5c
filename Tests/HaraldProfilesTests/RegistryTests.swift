import Foundation
import HaraldCodec
import HaraldProfiles
import Testing

/// A vendor value registered by a user: a 16-bit counter.
private struct Counter: ByteCodable, Sendable {
    var count: UInt16
    init(from reader: inout ByteReader) throws(ByteDecodingError) { count = try reader.read(UInt16.self, field: "count") }
    func encode(to writer: inout ByteWriter) throws(ByteEncodingError) { writer.write(count) }
}

@Suite("Characteristic registry and JSON")
struct RegistryTests {
    @Test func theStandardRegistryHasEveryStandardTypeUnderItsUUID() {
        let registry = CharacteristicRegistry.standard
        #expect(registry.entries.count == CharacteristicRegistry.standardTypes.count)
        for type in CharacteristicRegistry.standardTypes {
            #expect(registry.entry(for: type.uuid)?.name == type.name)
        }
    }

    @Test func usersCanRegisterTheirOwnTypes() throws {
        var registry = CharacteristicRegistry.standard
        let uuid: BluetoothUUID = "12345678-1234-1234-1234-123456789ABC"
        registry.register(Counter.self, uuid: uuid, name: "Counter") { .object(["count": .int($0.count)]) }
        let entry = try #require(registry.entry(for: uuid))
        #expect(try entry.describe([0x2A, 0x00]) == .object(["count": .integer(42)]))
        #expect(entry.roundTrip([0x2A, 0x00]) == nil)
        #expect(CharacteristicRegistry.standard.entry(for: uuid) == nil)
    }

    @Test func aRegistrationCanRenameAndRedescribeAStandardType() throws {
        var registry = CharacteristicRegistry()
        registry.register(BatteryLevel.self, name: "Charge") { $0.percent.map { .int($0) } ?? .null }
        let entry = try #require(registry.entry(for: BatteryLevel.uuid))
        #expect(entry.name == "Charge")
        #expect(try entry.describe([0x2A]) == .integer(42))
    }

    @Test func describingUnderAnUnknownUUIDGivesNil() throws {
        #expect(try CharacteristicRegistry.standard.describe([0x01], as: "FFF1") == nil)
        #expect(try CharacteristicRegistry.standard.describe([0x01], as: "2A19") == .object(["level": .integer(1)]))
    }

    @Test func decodingErrorsFromTheRegistryNameTheType() {
        #expect(throws: ByteDecodingError(typeName: "BatteryLevel", field: "", offset: 1, reason: .trailingBytes(count: 1))) {
            try CharacteristicRegistry.standard.entry(for: "2A19")!.describe([0x64, 0x00])
        }
    }

    @Test(arguments: [
        (0x07FF, 0x007F_FFFF, "NaN"), (0x0800, 0x0080_0000, "NRes"), (0x07FE, 0x007F_FFFE, "+INF"),
        (0x0802, 0x0080_0002, "-INF"), (0x0801, 0x0080_0001, "reserved"),
    ])
    func ieee11073SpecialValuesDescribeAsTheirNames(sfloat: UInt16, float: UInt32, name: String) {
        #expect(JSONValue.medical(MedicalFloat16(bitPattern: sfloat)) == .string(name))
        #expect(JSONValue.medical(MedicalFloat32(bitPattern: float)) == .string(name))
    }

    @Test func jsonTextSortsKeysAndEscapesStrings() {
        let value: JSONValue = .object(["b": .integer(1), "a": .string("q\"\\\n\u{01}"), "c": .array([.bool(true), .null])])
        #expect(value.jsonText == #"{"a":"q\"\\\n\u0001","b":1,"c":[true,null]}"#)
    }

    @Test func wholeNumbersPrintWithoutAFractionAndOthersShortest() {
        #expect(JSONValue.number(138).jsonText == "138")
        #expect(JSONValue.number(0.86).jsonText == "0.86")
        #expect(JSONValue.number(402_653_184.1).jsonText == "402653184.1")
    }

    @Test func jsonTextParsesBackToTheSameTree() throws {
        let value = try CharacteristicRegistry.standard.entry(for: "2A1C")!.describe([UInt8](hex: "06b00e00fedc070c050b321b04"))
        let parsed = try JSONDecoder().decode(JSONValue.self, from: Data(value.jsonText.utf8))
        #expect(parsed == value)
    }
}
