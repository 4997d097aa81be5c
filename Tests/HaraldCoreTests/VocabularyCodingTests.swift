import Foundation
import HaraldCodec
import HaraldCore
import Testing

/// JSON text of `value` (wrapped in an array, so scalars are valid documents), without the brackets.
private func json<T: Encodable>(_ value: T) throws -> String {
    let text = String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
    return String(text.dropFirst().dropLast())
}

/// `value` decoded from `text` (wrapped in an array, as ``json(_:)`` writes it).
private func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    try JSONDecoder().decode([T].self, from: Data("[\(text)]".utf8))[0]
}

@Suite("Bluetooth addresses as JSON")
struct BluetoothAddressCodingTests {
    @Test func anAddressIsCodedAsItsCanonicalText() throws {
        let address = try #require(BluetoothAddress("C0:00:00:00:00:01/random"))
        #expect(try decode(String.self, from: json(address)) == "C0:00:00:00:00:01/random")
    }

    @Test(arguments: ["C0:00:00:00:00:01/random", "00:1B:DC:07:32:5A/public"])
    func anAddressDecodesToTheSameAddress(text: String) throws {
        let address = try #require(BluetoothAddress(text))
        #expect(try decode(BluetoothAddress.self, from: json(address)) == address)
    }

    @Test func anAddressWithoutItsKindIsRejected() {
        #expect(throws: DecodingError.self) { try decode(BluetoothAddress.self, from: #""C0:00:00:00:00:01""#) }
    }

    @Test(arguments: [#""C0:00:00:00:01/random""#, #""C0:00:00:00:00:0G/public""#, #""C0:00:00:00:00:01/other""#, #""""#, "42", "null"])
    func malformedAddressesAreRejected(text: String) {
        #expect(throws: DecodingError.self) { try decode(BluetoothAddress.self, from: text) }
    }
}

@Suite("RSSI as JSON")
struct RSSICodingTests {
    @Test func aStrengthIsCodedAsItsDBmInteger() throws {
        #expect(try json(RSSI(dBm: -58)) == "-58")
    }

    @Test(arguments: [Int8(-128), -58, 0, 20, 126])
    func aStrengthDecodesToTheSameStrength(dBm: Int8) throws {
        #expect(try decode(RSSI.self, from: json(RSSI(dBm: dBm))) == RSSI(dBm: dBm))
    }

    @Test(arguments: ["127", "128", "-129", "-58.5", #""-58""#])
    func valuesThatAreNotAStrengthAreRejected(text: String) {
        #expect(throws: DecodingError.self) { try decode(RSSI.self, from: text) }
    }

    @Test func theNotAvailableSentinelIsNotEncoded() {
        #expect(throws: EncodingError.self) { try json(RSSI(dBm: Int8(127))) }
    }
}

@Suite("Advertising data as JSON")
struct AdvertisingDataCodingTests {
    // Flags 0x06 and a complete 16-bit UUID list [0x180D].
    let sample: [UInt8] = [0x02, 0x01, 0x06, 0x03, 0x03, 0x0D, 0x18]

    @Test func advertisingDataIsCodedAsTheHexOfItsADStructures() throws {
        #expect(try json(AdvertisingData(parsing: sample)) == #""02010603030d18""#)
    }

    @Test func advertisingDataDecodesToEqualStructures() throws {
        let data = AdvertisingData(parsing: sample + [0x03, 0xFF, 0x59, 0x00])
        #expect(try decode(AdvertisingData.self, from: json(data)) == data)
    }

    @Test func structuresWithMalformedContentsSurviveTheRoundTrip() throws {
        // A 16-bit UUID list of 3 bytes: kept raw when scanning, so it must decode too.
        let data = AdvertisingData(parsing: [0x04, 0x03, 0x0D, 0x18, 0x0F])
        #expect(try decode(AdvertisingData.self, from: json(data)) == data)
    }

    @Test func emptyAdvertisingDataIsAnEmptyString() throws {
        #expect(try json(AdvertisingData()) == #""""#)
        #expect(try decode(AdvertisingData.self, from: #""""#) == AdvertisingData())
    }

    @Test func zeroPaddingAfterTheStructuresIsAccepted() throws {
        #expect(try decode(AdvertisingData.self, from: #""0201060000""#) == AdvertisingData(parsing: [0x02, 0x01, 0x06]))
    }

    @Test(arguments: [
        #""02010""#,  // odd number of digits
        #""zz""#,  // not hex
        #""050106""#,  // a structure longer than the bytes
        #""0201060005""#,  // non-zero bytes after a zero length
        "42",  // not a string
    ])
    func malformedAdvertisingDataIsRejected(text: String) {
        #expect(throws: DecodingError.self) { try decode(AdvertisingData.self, from: text) }
    }

    @Test func aStructureTooLongForItsLengthByteIsNotEncoded() {
        let data = AdvertisingData(structures: [.init(type: .manufacturerSpecificData, data: Array(repeating: 0, count: 255))])
        #expect(throws: EncodingError.self) { try json(data) }
    }
}
