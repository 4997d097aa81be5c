@testable import Harald
import HaraldCore
import Testing

/// Limits RELIABILITY.md lists for the connection API, at their defaults (scripts/check-limits ties the
/// figures here to the document).
@Suite("Connections and subscriptions: documented limits at their defaults")
struct HaraldDefaultLimitTests {
    @Test func aSharedLinksServiceChangeStreamHoldsTheNewest16() {
        #expect(SharedLink.changeBufferLimit == 16)
    }

    @Test func theDefaultKeepsTheNewest64ValuesAndCountsTheDisplacedOnes() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .default)
        for value in UInt8(1)...70 { source.yield([value]) }
        source.finish()
        var seen: [[UInt8]] = []
        for await value in updates { seen.append(value) }
        #expect(seen.count == 64)
        #expect(seen == (UInt8(7)...70).map { [$0] })
        #expect(updates.droppedCount == 70 - 64)
    }

    @Test func theLosslessDefaultHolds4096ValuesAndTheNextEndsTheStreamWithAnOverflow() async throws {
        let (updates, source) = ValueUpdates.makeStream(buffering: .lossless)
        for value in 0..<4096 { #expect(source.yield([UInt8(value & 0xFF), UInt8(value >> 8)])) }
        #expect(source.yield([0xFF, 0xFF]) == false, "the 4,097th ends the stream instead of being dropped")
        let subscription = Subscription<[UInt8]>(updates: updates, failures: FailureCounter(DecodingFailures()), policy: .skip, ended: EndFlag(false))
        var received = 0
        await #expect(throws: BluetoothError.bufferOverflow(4096)) {
            for try await value in subscription {
                #expect(value == [UInt8(received & 0xFF), UInt8(received >> 8)])
                received += 1
            }
        }
        #expect(received == 4096)
    }
}
