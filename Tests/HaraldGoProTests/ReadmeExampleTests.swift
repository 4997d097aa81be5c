import Foundation
import HaraldGoPro
import HaraldTestSupport
import Testing

// The GoPro example from GUIDE.md, copied verbatim so the guide cannot drift from what compiles.
// If this file stops compiling or its tests fail, update GUIDE.md together with it.

func statuses(from notifications: [[UInt8]]) throws -> GoProValues? {
    var assemblers = GoProMessageAssemblers<GoProCharacteristic>()
    for packet in notifications {  // each notification of GP-0077, in order
        if let message = try assemblers.append(packet, from: .queryResponse) {
            return try GoProQueryResponse(message: message).values
        }
    }
    return nil
}

@Suite("README GoPro example")
struct ReadmeExampleTests {
    @Test func theExampleReadsTheAllStatusesStream() throws {
        let values = try #require(try statuses(from: AllStatusesStream.packets))
        #expect(values.integer(.internalBatteryPercentage) == 53)
        #expect(values.string(.accessPointSSID) == "GP24500456")
    }

    @Test func theExampleQueryFragmentsAsShown() throws {
        let packets = try GoProFragmenter.fragment(GoProQuery.getStatusValues([.encoding, .busy]).encoded())
        #expect(packets == [[0x20, 0x03, 0x13, 0x0A, 0x08]])
    }

    @Test func readmeShowsExactlyThisFunction() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let readme = testFile.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GUIDE.md")
        let shown = try #require(Self.declaration(in: String(contentsOf: readme, encoding: .utf8)))
        let tested = try #require(Self.declaration(in: String(contentsOf: testFile, encoding: .utf8)))
        #expect(shown == tested)
    }

    /// The lines from `func statuses(from` to the first line that is just `}`.
    static func declaration(in text: String) -> [Substring]? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("func statuses(from") }),
            let end = lines[start...].firstIndex(of: "}")
        else { return nil }
        return Array(lines[start...end])
    }
}
