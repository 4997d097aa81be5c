import Foundation
import HaraldCodec
import Testing

// The quick-start type from README.md, copied verbatim so the README cannot drift from what compiles.
// If this file stops compiling or its tests fail, update the README together with it.

struct LEDColor: ByteCodable {
    enum Mode: Int, FlagBit { case party = 0 }
    var frequency: UInt8?  // present only in party mode
    var red, green, blue: UInt8

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let mode = try reader.readFlags(Mode.self, as: UInt8.self)
        frequency = mode.contains(.party) ? try reader.read(UInt8.self, field: "frequency") : nil
        red = try reader.read(field: "red")
        green = try reader.read(field: "green")
        blue = try reader.read(field: "blue")
    }

    func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Flags<Mode, UInt8>(frequency == nil ? [] : [.party]))
        if let frequency { writer.write(frequency) }
        writer.write(red); writer.write(green); writer.write(blue)
    }
}

@Suite("README quick start")
struct ReadmeQuickStartTests {
    @Test func decodesThePartyModeExample() throws {
        let color = try LEDColor(decoding: [0x01, 0x05, 0xFF, 0x80, 0x00])
        #expect(color.frequency == 5)
        #expect(color.red == 0xFF)
        #expect(color.green == 0x80)
        #expect(color.blue == 0x00)
    }

    @Test func decodesWithoutTheOptionalField() throws {
        let color = try LEDColor(decoding: [0x00, 0x10, 0x20, 0x30])
        #expect(color.frequency == nil)
        #expect([color.red, color.green, color.blue] == [0x10, 0x20, 0x30])
    }

    @Test func shortInputGivesTheDocumentedMessage() {
        let error = decodingError { () throws(ByteDecodingError) in try LEDColor(decoding: [0x01, 0x05, 0xFF, 0x80]) }
        #expect(error?.description == "LEDColor: needs 1 byte for 'blue' at offset 4, 0 left")
    }

    @Test(arguments: [[0x01, 0x05, 0xFF, 0x80, 0x00], [0x00, 0x10, 0x20, 0x30]] as [[UInt8]])
    func encodesBackToTheSameBytes(bytes: [UInt8]) throws {
        #expect(try LEDColor(decoding: bytes).encodedBytes() == bytes)
    }

    @Test func readmeShowsExactlyThisType() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let readme = testFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let readmeType = try #require(Self.ledColorDeclaration(in: String(contentsOf: readme, encoding: .utf8)))
        let testedType = try #require(Self.ledColorDeclaration(in: String(contentsOf: testFile, encoding: .utf8)))
        #expect(readmeType == testedType)
    }

    /// The lines from `struct LEDColor` to the first line that is just `}`.
    static func ledColorDeclaration(in text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("struct LEDColor") }),
            let end = lines[start...].firstIndex(of: "}")
        else { return nil }
        return Array(lines[start...end])
    }

    @Test func unknownModeBitsAreNotAnError() throws {
        // Bit 1 is not named; the value still decodes (and is not in party mode).
        let color = try LEDColor(decoding: [0x02, 1, 2, 3])
        #expect(color.frequency == nil)
    }
}
