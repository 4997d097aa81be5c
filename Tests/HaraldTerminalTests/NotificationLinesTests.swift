import HaraldCodec
import HaraldProfiles
import HaraldTerminal
import Testing

@Suite("The lines of harald subscribe")
struct NotificationLinesTests {
    @Test func aLineHasTheTimeTheSIGNameHexAndDecodedFields() {
        var lines = NotificationLines(uuid: BluetoothUUID(0x2A19))
        let line = lines.line(for: [0x57], decoded: .fields(["level": .int(87)]), at: .milliseconds(1250))
        #expect(line == "[+1.250s] 2A19 Battery Level: 57 → level: 87  level ▅")
    }

    @Test func theSparklineGrowsWithEachNumberUpToItsWidth() {
        var lines = NotificationLines(uuid: BluetoothUUID(0x2A19), width: 3)
        var last = ""
        for level in [10, 20, 30, 40] {
            last = lines.line(for: [UInt8(level)], decoded: .fields(["level": .int(Int64(level))]), at: .zero)
        }
        #expect(lines.numbers == [20, 30, 40])
        #expect(last.hasSuffix("  level ▁▄█"))
    }

    @Test func aValueWithoutANumberHasNoSparkline() {
        var lines = NotificationLines(uuid: BluetoothUUID(0x2A29))
        let line = lines.line(for: Array("Harald".utf8), decoded: .fields(["text": .string("Harald")]), at: .seconds(2))
        #expect(line.hasSuffix(#"→ text: "Harald""#))
        #expect(lines.numbers.isEmpty)
    }

    @Test func timesPrintToTheMillisecond() {
        #expect(NotificationLines.seconds(.zero) == "+0.000s")
        #expect(NotificationLines.seconds(.milliseconds(61_005)) == "+61.005s")
        #expect(NotificationLines.seconds(.microseconds(999)) == "+0.000s")
    }
}
