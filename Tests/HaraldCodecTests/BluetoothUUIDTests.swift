import Foundation
import HaraldCodec
import Testing

/// Parses runtime text. (`BluetoothUUID("…")` with a literal argument would be the string-literal
/// initialiser, which stops the program on bad text instead of returning nil.)
private func parse(_ text: String) -> BluetoothUUID? { BluetoothUUID(text) }

@Suite("BluetoothUUID")
struct BluetoothUUIDTests {
    let heartRate = BluetoothUUID(0x180D)
    /// A vendor UUID (GoPro's command characteristic).
    let vendor = BluetoothUUID(high: 0xB5F9_0072_AA8D_11E3, low: 0x9046_0002_A5D5_C51B)

    // MARK: Parsing

    @Test(arguments: [
        "180D", "0x180D", "0X180D", "180d", "0x180d", " 180D\n", "\t180D\r\n", "0000180D", "0000180d-0000-1000-8000-00805f9b34fb",
        "0000180D-0000-1000-8000-00805F9B34FB", "0000180D0000100080000080 5F9B34FB".replacingOccurrences(of: " ", with: ""),
    ])
    func parsesEveryFormOfASixteenBitUUID(text: String) {
        #expect(parse(text) == heartRate)
    }

    @Test func parsesThirtyTwoBitForm() {
        let uuid = parse("12345678")
        #expect(uuid == BluetoothUUID(uuid32: 0x1234_5678))
        #expect(uuid?.uuid32 == 0x1234_5678)
        #expect(uuid?.uuid16 == nil)
    }

    @Test func parsesVendorUUIDInEitherCase() {
        #expect(parse("B5F90072-AA8D-11E3-9046-0002A5D5C51B") == vendor)
        #expect(parse("b5f90072-aa8d-11e3-9046-0002a5d5c51b") == vendor)
    }

    @Test func parsesDashlessThirtyTwoDigitForm() {
        #expect(parse("B5F90072AA8D11E390460002A5D5C51B") == vendor)
    }

    @Test(arguments: [
        "", "   ", "0x", "180", "18", "1", "180DA", "180G", "0x180G", "12345", "1234567", "123456789",
        "B5F90072AA8D-11E3-9046-0002A5D5C51B-",  // dashes in the wrong places
        "B5F9007-2AA8D-11E3-9046-0002A5D5C51B",
        "B5F90072-AA8D11E3-9046-0002-A5D5C51B",
        "B5F90072-AA8D-11E3-9046-0002A5D5C51",  // a digit short
        "B5F90072-AA8D-11E3-9046-0002A5D5C51BB",  // a digit long
        "B5F90072AA8D11E390460002A5D5C51",  // 31 digits
        "B5F90072AA8D11E390460002A5D5C51B00",  // 34 digits
        "not a uuid", "18-0D", "0x-180D", "１８０Ｄ", "180D\u{301}", "0x0x180D",
    ])
    func rejectsInvalidText(text: String) {
        #expect(parse(text) == nil)
    }

    // MARK: Printing

    @Test func sixteenBitPrintsAsFourUpperCaseDigits() {
        #expect(BluetoothUUID(0x2A37).uuidString == "2A37")
        #expect(BluetoothUUID(0x000F).uuidString == "000F")
        #expect(parse("2a37")?.description == "2A37")
    }

    @Test func thirtyTwoBitPrintsAsEightDigits() {
        #expect(BluetoothUUID(uuid32: 0x1234_ABCD).uuidString == "1234ABCD")
    }

    @Test func thirtyTwoBitFormOfASixteenBitValuePrintsShort() {
        #expect(BluetoothUUID(uuid32: 0x0000_180D).uuidString == "180D")
    }

    @Test func vendorPrintsCanonicalUpperCase() {
        #expect(vendor.uuidString == "B5F90072-AA8D-11E3-9046-0002A5D5C51B")
        #expect(vendor.description == vendor.uuidString)
    }

    @Test func canonicalStringExpandsSIGUUIDs() {
        #expect(heartRate.canonicalString == "0000180D-0000-1000-8000-00805F9B34FB")
    }

    @Test func canonicalStringMatchesFoundationUUID() throws {
        let foundation = try #require(UUID(uuidString: vendor.uuidString))
        #expect(foundation.uuidString == vendor.canonicalString)
    }

    // MARK: Identity and widths

    @Test func sixteenBitEqualsItsExpandedForm() {
        let expanded = BluetoothUUID(high: 0x0000_180D_0000_1000, low: 0x8000_0080_5F9B_34FB)
        #expect(heartRate == expanded)
        #expect(heartRate.hashValue == expanded.hashValue)
    }

    @Test func shortFormsAreSIGAssigned() {
        #expect(heartRate.isSIGAssigned)
        #expect(BluetoothUUID(uuid32: 0xABCD_0001).isSIGAssigned)
        #expect(!vendor.isSIGAssigned)
    }

    @Test func bitWidthIsTheShortestCarrier() {
        #expect(heartRate.bitWidth == 16)
        #expect(BluetoothUUID(uuid32: 0x0001_0000).bitWidth == 32)
        #expect(vendor.bitWidth == 128)
    }

    @Test func vendorHasNoShortForms() {
        #expect(vendor.uuid16 == nil)
        #expect(vendor.uuid32 == nil)
    }

    @Test func nearlyBaseUUIDIsNotSIGAssigned() {
        // The base UUID with one low bit changed is a vendor UUID.
        let almost = BluetoothUUID(high: 0x0000_180D_0000_1000, low: 0x8000_0080_5F9B_34FA)
        #expect(almost.uuid16 == nil)
        #expect(almost.uuidString == "0000180D-0000-1000-8000-00805F9B34FA")
    }

    @Test func bigEndianBytesAreInTextOrder() {
        #expect(vendor.bigEndianBytes == [0xB5, 0xF9, 0x00, 0x72, 0xAA, 0x8D, 0x11, 0xE3, 0x90, 0x46, 0x00, 0x02, 0xA5, 0xD5, 0xC5, 0x1B])
        #expect(BluetoothUUID(bigEndianBytes: vendor.bigEndianBytes) == vendor)
    }

    @Test func bigEndianBytesInitNeedsSixteenBytes() {
        #expect(BluetoothUUID(bigEndianBytes: [UInt8](repeating: 0, count: 15)) == nil)
        #expect(BluetoothUUID(bigEndianBytes: [UInt8](repeating: 0, count: 17)) == nil)
    }

    @Test func stringLiteralParses() {
        let literal: BluetoothUUID = "2A37"
        #expect(literal == BluetoothUUID(0x2A37))
    }

    @Test func invalidStringLiteralStopsTheProgram() async {
        // A literal is source code, not input: a bad one is a programmer error (see init(_:) for text).
        await #expect(processExitsWith: .failure) {
            _ = BluetoothUUID(stringLiteral: "not-a-uuid")
        }
    }

    @Test func orderingIsByValue() {
        #expect(BluetoothUUID(0x1800) < BluetoothUUID(0x180D))
        #expect([vendor, heartRate].sorted() == [heartRate, vendor])
    }

    // MARK: Wire form

    @Test func readsTwoByteLittleEndian() throws {
        let uuid = try ByteReader.withReader([0x0D, 0x18] as [UInt8]) { r throws(ByteDecodingError) in
            try BluetoothUUID.read(from: &r, byteCount: 2, field: "uuid")
        }
        #expect(uuid == heartRate)
    }

    @Test func readsFourByteLittleEndian() throws {
        let uuid = try ByteReader.withReader([0x78, 0x56, 0x34, 0x12] as [UInt8]) { r throws(ByteDecodingError) in
            try BluetoothUUID.read(from: &r, byteCount: 4, field: "uuid")
        }
        #expect(uuid == BluetoothUUID(uuid32: 0x1234_5678))
    }

    @Test func readsSixteenByteLittleEndian() throws {
        let wire = Array(vendor.bigEndianBytes.reversed())
        let uuid = try ByteReader.withReader(wire) { r throws(ByteDecodingError) in
            try BluetoothUUID.read(from: &r, byteCount: 16, field: "uuid")
        }
        #expect(uuid == vendor)
    }

    @Test(arguments: [0, 1, 3, 8, -1, Int.max])
    func readRejectsOtherWidths(byteCount: Int) {
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader([UInt8](repeating: 0, count: 16)) { r throws(ByteDecodingError) in
                try BluetoothUUID.read(from: &r, byteCount: byteCount, field: "service")
            }
        }
        #expect(error?.field == "service")
        if case .invalidValue = error?.reason {} else { Issue.record("expected invalidValue, got \(String(describing: error))") }
    }

    @Test func truncatedSixteenByteReadNamesTheField() {
        let error = decodingError { () throws(ByteDecodingError) in
            try ByteReader.withReader([UInt8](repeating: 0, count: 10)) { r throws(ByteDecodingError) in
                try BluetoothUUID.read(from: &r, byteCount: 16, field: "service")
            }
        }
        #expect(error == ByteDecodingError(field: "service", offset: 0, reason: .truncated(needed: 16, available: 10)))
    }

    @Test func writesEachWidthLittleEndian() throws {
        var writer = ByteWriter()
        try heartRate.write(to: &writer, byteCount: 2)
        try heartRate.write(to: &writer, byteCount: 4)
        #expect(writer.bytes == [0x0D, 0x18, 0x0D, 0x18, 0x00, 0x00])
        var long = ByteWriter()
        try vendor.write(to: &long, byteCount: 16)
        #expect(long.bytes == Array(vendor.bigEndianBytes.reversed()))
    }

    @Test func writingAVendorUUIDInTwoBytesThrows() {
        var writer = ByteWriter()
        #expect(throws: ByteEncodingError.self) { try vendor.write(to: &writer, byteCount: 2) }
        #expect(writer.bytes.isEmpty)
    }

    @Test func writingAThirtyTwoBitUUIDInTwoBytesThrows() {
        var writer = ByteWriter()
        #expect(throws: ByteEncodingError.self) { try BluetoothUUID(uuid32: 0x1234_5678).write(to: &writer, byteCount: 2) }
    }

    @Test func writingInAnOddWidthThrows() {
        var writer = ByteWriter()
        #expect(throws: ByteEncodingError.self) { try heartRate.write(to: &writer, byteCount: 3) }
    }

    @Test func encodesInTheShortestWidth() throws {
        #expect(try heartRate.encodedBytes() == [0x0D, 0x18])
        #expect(try BluetoothUUID(uuid32: 0x1234_5678).encodedBytes() == [0x78, 0x56, 0x34, 0x12])
        #expect(try vendor.encodedBytes().count == 16)
    }

    @Test func decodesWholeValueOfTwoFourOrSixteenBytes() throws {
        #expect(try BluetoothUUID(decoding: [0x0D, 0x18]) == heartRate)
        #expect(try BluetoothUUID(decoding: vendor.encodedBytes()) == vendor)
    }

    @Test func wholeValueOfThreeBytesIsInvalid() {
        let error = decodingError { () throws(ByteDecodingError) in try BluetoothUUID(decoding: [1, 2, 3]) }
        #expect(error?.typeName == "BluetoothUUID")
        #expect(error?.field == "uuid")
    }

    // MARK: Codable

    @Test func codableRoundTripsThroughJSON() throws {
        let values = [heartRate, BluetoothUUID(uuid32: 0x1234_5678), vendor]
        let json = try JSONEncoder().encode(values)
        #expect(try JSONDecoder().decode([BluetoothUUID].self, from: json) == values)
    }

    @Test func codableUsesTheTextForm() throws {
        let json = try JSONEncoder().encode([heartRate])
        #expect(String(decoding: json, as: UTF8.self) == #"["180D"]"#)
    }

    @Test func codableRejectsInvalidText() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([BluetoothUUID].self, from: Data(#"["18"]"#.utf8)) }
    }
}
