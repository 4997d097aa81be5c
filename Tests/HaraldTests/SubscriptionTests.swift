@testable import Harald
import Testing

@Suite("Subscription streams")
struct SubscriptionTests {
    private func subscription(_ policy: DecodingFailurePolicy = .skip, buffering: UpdateBuffering = .default)
        -> (Subscription<UInt8>, ValueUpdates.Continuation, EndFlag)
    {
        let (updates, continuation) = ValueUpdates.makeStream(buffering: buffering)
        let ended = EndFlag(false)
        return (Subscription(updates: updates, failures: FailureCounter(DecodingFailures()), policy: policy, ended: ended), continuation, ended)
    }

    @Test func valuesArriveDecodedInOrder() async throws {
        let (subscription, source, _) = subscription()
        source.yield([1]); source.yield([2]); source.finish()
        var seen: [UInt8] = []
        for try await value in subscription { seen.append(value) }
        #expect(seen == [1, 2])
    }

    @Test func aDroppedLinkEndsTheLoopWithTheBackendsReason() async {
        let (subscription, source, _) = subscription()
        source.yield([7])
        source.finish(throwing: .disconnected(.connectionLost))
        var seen: [UInt8] = []
        await #expect(throws: BluetoothError.disconnected(.connectionLost)) {
            for try await value in subscription { seen.append(value) }
        }
        #expect(seen == [7])
    }

    @Test func aValueThatDoesNotDecodeIsSkippedAndCounted() async throws {
        let (subscription, source, _) = subscription(.skip)
        source.yield([1]); source.yield([2, 3]); source.yield([4]); source.finish()
        var seen: [UInt8] = []
        for try await value in subscription { seen.append(value) }
        #expect(seen == [1, 4])
        #expect(subscription.decodingFailures == 1)
        #expect(subscription.lastDecodingError?.reason == .trailingBytes(count: 1))
    }

    @Test func aValueThatDoesNotDecodeEndsTheLoopWhenAsked() async {
        let (subscription, source, _) = subscription(.fail)
        source.yield([]); source.finish()
        await #expect(throws: BluetoothError.self) {
            for try await _ in subscription {}
        }
    }

    @Test(arguments: [UpdateBuffering.oldest(8), .newest(8)])
    func aFloodPastTheBufferStillEndsTheLoopWithTheDisconnection(buffering: UpdateBuffering) async {
        let (subscription, source, _) = subscription(buffering: buffering)
        for value in 0..<10_000 { source.yield([UInt8(truncatingIfNeeded: value)]) }
        source.finish(throwing: .disconnected(.connectionLost))
        var count = 0
        await #expect(throws: BluetoothError.disconnected(.connectionLost)) {
            for try await _ in subscription { count += 1 }
        }
        #expect(count == 8)
        #expect(subscription.droppedCount == 10_000 - 8)
    }

    @Test func aFullBufferDropsTheOldestAndCountsThem() async throws {
        let (subscription, source, _) = subscription(buffering: .newest(2))
        for value in UInt8(1)...5 { source.yield([value]) }
        source.finish()
        var seen: [UInt8] = []
        for try await value in subscription { seen.append(value) }
        #expect(seen == [4, 5])
        #expect(subscription.droppedCount == 3)
    }
}
