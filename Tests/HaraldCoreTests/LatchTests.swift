import HaraldCore
import Testing

/// The one set-once, await-many value of the package (a link's disconnection reason, a
/// connection's release).
@Suite("Latch", .timeLimit(.minutes(1)))
struct LatchTests {
    @Test func theFirstValueWinsAndLaterOnesAreRefused() {
        let latch = Latch<Int>()
        #expect(latch.current == nil)
        #expect(latch.set(1))
        #expect(!latch.set(2))
        #expect(latch.current == 1)
    }

    @Test func aWaiterAfterTheValueGetsItAtOnce() async {
        let latch = Latch<Int>()
        latch.set(7)
        #expect(await latch.wait() == 7)
        #expect(await latch.wait(ifCancelled: 0) == 7)
    }

    @Test func everyWaiterIsWokenBySet() async {
        let latch = Latch<Int>()
        await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<8 { group.addTask { await latch.wait() } }
            // The waiters may or may not be suspended yet; either way each sees the value.
            latch.set(42)
            var values: [Int?] = []
            for await value in group { values.append(value) }
            #expect(values == Array(repeating: 42, count: 8))
        }
    }

    @Test func aCancelledWaiterStopsWithNilOrItsFallback() async {
        let latch = Latch<Int>()
        let plain = Task { await latch.wait() }
        let withFallback = Task { await latch.wait(ifCancelled: -1) }
        plain.cancel()
        withFallback.cancel()
        #expect(await plain.value == nil)
        #expect(await withFallback.value == -1)
        // Nothing was left waiting: a later set wakes no one and still wins.
        #expect(latch.set(3))
        #expect(await latch.wait() == 3)
    }
}
