@testable import Harald
import HaraldCore
import Testing

@Suite("Lossless buffering: every value, or a visible end")
struct LosslessBufferingTests {
    @Test func aLoopThatKeepsUpGetsEveryValue() async {
        let (updates, source) = ValueUpdates.makeStream(buffering: .lossless(limit: 3))
        for value in UInt8(1)...3 { #expect(source.yield([value])) }
        source.finish()
        var received: [[UInt8]] = []
        for await value in updates { received.append(value) }
        #expect(received == [[1], [2], [3]])
        #expect(updates.droppedCount == 0)
    }

    @Test func aLoopThatFallsTooFarBehindGetsTheWaitingValuesThenTheOverflow() async throws {
        let (updates, source) = ValueUpdates.makeStream(buffering: .lossless(limit: 3))
        for value in UInt8(1)...3 { source.yield([value]) }
        #expect(source.yield([4]) == false, "the fourth value ends the stream instead of being dropped")
        let subscription = Subscription<[UInt8]>(updates: updates, failures: FailureCounter(DecodingFailures()), policy: .skip, ended: EndFlag(false))
        var received: [[UInt8]] = []
        await #expect(throws: BluetoothError.bufferOverflow(3)) {
            for try await value in subscription { received.append(value) }
        }
        #expect(received == [[1], [2], [3]])
        #expect(updates.droppedCount == 0)
    }

    @Test func theDefaultForIndicationsIsLosslessAndForNotificationsNewest() {
        #expect(UpdateBuffering.lossless == .lossless(limit: 4096))
        #expect(UpdateBuffering.default == .newest(64))
    }
}
