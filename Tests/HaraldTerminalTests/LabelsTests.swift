import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldTerminal
import Testing

@Suite("Labels: numbers with their SIG names")
struct LabelsTests {
    @Test func aSIGUUIDShowsItsNumberThenItsName() {
        #expect(Labels.uuid(BluetoothUUID(0x180D)) == "180D Heart Rate")
        #expect(Labels.uuid(BluetoothUUID(0x2A37)) == "2A37 Heart Rate Measurement")
        #expect(Labels.uuid(BluetoothUUID(0x2902)) == "2902 Client Characteristic Configuration")
    }

    @Test func aVendorUUIDShowsItsNumberAlone() {
        let uuid: BluetoothUUID = "6E40A000-3C1D-4B2A-9F3E-48415241C000"
        #expect(Labels.uuid(uuid) == "6E40A000-3C1D-4B2A-9F3E-48415241C000")
    }

    @Test func aCompanyShowsItsIdentifierInHexThenItsName() {
        #expect(Labels.company(0x004C) == "0x004C Apple, Inc.")
        #expect(Labels.company(0xFFFF) == "0xFFFF")
    }

    @Test func aValueWithACodecShowsHexThenTheDecodedFields() {
        #expect(Labels.value([0x57], of: BluetoothUUID(0x2A19)) == "57 → level: 87")
    }

    @Test func aValueWithoutACodecShowsHexAlone() {
        #expect(Labels.value([0x01, 0xAB], of: BluetoothUUID(0xFFF1)).uppercased() == "01AB")
    }

    @Test func bytesThatDoNotFitTheCodecSayWhy() {
        let text = Labels.value([], of: BluetoothUUID(0x2A19))
        #expect(text.hasPrefix("(empty) → (not a valid value"))
    }

    @Test func longValuesAreCutWithTheirLengthSaid() {
        let text = Labels.hex(Array(repeating: 0xAA, count: 512), limit: 4)
        #expect(text.uppercased() == "AAAAAAAA… (512 BYTES)")
    }

    @Test func decodedObjectsPrintAsKeyValuePairsInKeyOrder() {
        let value = JSONValue.fields(["text": .string("Harald"), "count": .int(2), "list": .array([.int(1), .bool(true)])])
        #expect(Labels.decoded(value) == #"count: 2, list: [1, true], text: "Harald""#)
    }
}
