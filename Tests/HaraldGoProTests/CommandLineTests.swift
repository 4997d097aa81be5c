import Foundation
import HaraldCodec
import HaraldTestSupport
import Testing

/// The `harald gopro decode` / `harald gopro fragment` contract, run against the built
/// executable with the shared vectors.
@Suite("harald gopro")
struct CommandLineTests {
    struct PrintedMessage: Decodable, Equatable {
        struct Value: Decodable, Equatable {
            var id: Int
            var value: String
        }

        var id: Int
        var status: Int
        var payload: String?
        var values: [Value]?
    }

    @Test func theExecutableIsBuiltNextToTheTests() {
        #expect(HaraldExecutable.url != nil, "\(HaraldExecutable.NotFound())")
    }

    @Test(arguments: GoProVectors.decodable)
    func decodePrintsTheExpectedMessages(vector: GoProStreamVector) throws {
        let outcome = try HaraldExecutable.run(["gopro", "decode", "--from", vector.uuid] + vector.packets)
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        #expect(outcome.stderr.isEmpty)
        #expect(outcome.stdout.split(separator: "\n").count == 1, "stdout: \(outcome.stdout)")
        let printed = try JSONDecoder().decode([PrintedMessage].self, from: Data(outcome.stdout.utf8))
        let expected = try #require(vector.expected).map { message in
            PrintedMessage(
                id: message.id, status: message.status, payload: message.payload?.lowercased(),
                values: message.values?.map { .init(id: $0.id, value: $0.value.lowercased()) })
        }
        #expect(printed == expected)
    }

    @Test(arguments: GoProVectors.failing)
    func malformedStreamsExitWith65AndOneErrorLine(vector: GoProStreamVector) throws {
        let outcome = try HaraldExecutable.run(["gopro", "decode", "--from", vector.uuid] + vector.packets)
        Self.expectDataError(outcome)
    }

    @Test func theAllStatusesStreamDecodesToEightyEightValues() throws {
        let packets = AllStatusesStream.packetsHex.map { $0.replacingOccurrences(of: " ", with: "") }
        let outcome = try HaraldExecutable.run(["gopro", "decode", "--from", "GP-0077"] + packets)
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let printed = try JSONDecoder().decode([PrintedMessage].self, from: Data(outcome.stdout.utf8))
        #expect(printed.count == 1)
        #expect(printed.first?.id == 0x13)
        #expect(printed.first?.values?.count == 88)
        #expect(printed.first?.values?.first { $0.id == 21 }?.value == "00003ea4")
    }

    @Test(arguments: ["0g", "123", "6x"])
    func badHexExitsWith65(hex: String) throws {
        Self.expectDataError(try HaraldExecutable.run(["gopro", "decode", hex]))
    }

    @Test func aReservedHeaderExitsWith65() throws {
        Self.expectDataError(try HaraldExecutable.run(["gopro", "decode", "600100"]))
    }

    @Test func aMalformedQueryResponseExitsWith65() throws {
        Self.expectDataError(try HaraldExecutable.run(["gopro", "decode", "--from", "GP-0077", "0412000205"]))
    }

    @Test func anUnknownCharacteristicExitsWith64() throws {
        let outcome = try HaraldExecutable.run(["gopro", "decode", "--from", "GP-0072", "020100"])
        #expect(outcome.status == 64)
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.hasPrefix("error: "))
    }

    @Test(arguments: GoProVectors.fragmentation)
    func fragmentPrintsTheExpectedPackets(vector: FragmentationVector) throws {
        let outcome = try HaraldExecutable.run(["gopro", "fragment", vector.message])
        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        let printed = try JSONDecoder().decode([String].self, from: Data(outcome.stdout.utf8))
        #expect(printed == vector.packets.map { $0.lowercased() })
    }

    @Test func fragmentHonoursThePacketSize() throws {
        let message = Hex.encode([UInt8](repeating: 0xAB, count: 100))
        let outcome = try HaraldExecutable.run(["gopro", "fragment", message, "--packet-size", "50"])
        let printed = try JSONDecoder().decode([String].self, from: Data(outcome.stdout.utf8))
        #expect(printed.map { $0.count / 2 } == [50, 50, 4])
    }

    @Test func fragmentRefusesMessagesAbove8191Bytes() throws {
        let message = Hex.encode([UInt8](repeating: 0, count: 8192))
        Self.expectDataError(try HaraldExecutable.run(["gopro", "fragment", message]))
    }

    static func expectDataError(_ outcome: HaraldExecutable.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.status == 65, sourceLocation: sourceLocation)
        #expect(outcome.stdout.isEmpty, sourceLocation: sourceLocation)
        let lines = outcome.stderr.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1, "stderr: \(outcome.stderr)", sourceLocation: sourceLocation)
        #expect(outcome.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
    }
}
