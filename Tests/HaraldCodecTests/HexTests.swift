import HaraldCodec
import Testing

@Suite("Hex")
struct HexTests {
    @Test(arguments: ["0c 99 01", "0C9901", "0x0c9901", "0X0C9901", "0c:99:01", "0c-99-01", "0c_99_01", "0c,99,01", " 0c\t99\n01 ", "0c\r\n99\r\n01\r\n"])
    func decodesEveryAcceptedForm(text: String) throws {
        #expect(try [UInt8](hex: text) == [0x0C, 0x99, 0x01])
    }

    @Test func decodesEmptyText() throws {
        #expect(try Hex.decode("") == [])
        #expect(try Hex.decode("0x") == [])
        #expect(try Hex.decode("  ") == [])
    }

    @Test func decodesEveryByteValue() throws {
        let all = (0...255).map { UInt8($0) }
        #expect(try Hex.decode(all.hexString) == all)
        #expect(try Hex.decode(Hex.encode(all, separator: " ", uppercase: true)) == all)
    }

    @Test func oddDigitCountIsAnError() {
        #expect(throws: Hex.ParseError(offset: 2, detail: "a byte needs two hex digits")) { try Hex.decode("0c9") }
    }

    @Test func badCharacterReportsItsOffset() {
        let error = #expect(throws: Hex.ParseError.self) { try Hex.decode("0c 9g 01") }
        #expect(error?.offset == 4)
    }

    @Test func badCharacterAfterPrefixCountsThePrefix() {
        let error = #expect(throws: Hex.ParseError.self) { try Hex.decode("0x0z") }
        #expect(error?.offset == 3)
    }

    @Test func byteSplitBySeparatorIsAnError() {
        let error = #expect(throws: Hex.ParseError.self) { try Hex.decode("0c 9 901") }
        #expect(error?.offset == 3)
    }

    @Test func prefixInsideTheTextIsAnError() {
        let error = #expect(throws: Hex.ParseError.self) { try Hex.decode("0c 0x99") }
        #expect(error?.offset == 4)
    }

    @Test func nonASCIIDigitIsAnError() {
        #expect(throws: Hex.ParseError.self) { try Hex.decode("０c") }
    }

    @Test func errorDescriptionNamesTheOffset() {
        let error = Hex.ParseError(offset: 3, detail: "'z' is not a hex digit")
        #expect(error.description == "invalid hex at character 3: 'z' is not a hex digit")
    }

    @Test func hexStringIsLowerCaseWithoutSeparators() {
        #expect([0x0C, 0x99, 0x01, 0xAB].hexString == "0c9901ab")
        #expect([UInt8]().hexString == "")
    }

    @Test func encodeWithSeparatorAndUpperCase() {
        #expect(Hex.encode([0x0C, 0xAB], separator: " ", uppercase: true) == "0C AB")
        #expect(Hex.encode([0x0C, 0xAB], separator: ":") == "0c:ab")
    }
}
