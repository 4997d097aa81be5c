import HaraldCore
import Testing

@Suite("DeadlineHeap: earliest first, equal deadlines in order, removal keeps the order")
struct DeadlineHeapTests {
    /// Pops everything, as (deadline in seconds, order).
    private func drain(_ heap: inout DeadlineHeap<Int>) -> [(Int64, UInt64)] {
        var popped: [(Int64, UInt64)] = []
        while let entry = heap.pop() { popped.append((entry.seconds, entry.order)) }
        return popped
    }

    @Test func removingAnEntryFromTheMiddleLeavesTheRestInDeadlineOrder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var heap = DeadlineHeap<Int>()
            var expected: [(Int64, UInt64)] = []
            for order in 1...40 {
                let seconds = Int64.random(in: 0..<10, using: &generator)
                heap.push(order, at: .seconds(seconds), order: UInt64(order))
                expected.append((seconds, UInt64(order)))
            }
            // Remove a third of the entries, wherever they sit in the heap's storage.
            let removed = Set((1...40).filter { _ in Bool.random(using: &generator) && Bool.random(using: &generator) })
            for order in removed {
                let entry = heap.remove { $0.element == order }
                #expect(entry?.order == UInt64(order))
            }
            expected.removeAll { removed.contains(Int($0.1)) }
            expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            let popped = drain(&heap)
            #expect(popped.map(\.0) == expected.map(\.0))
            #expect(popped.map(\.1) == expected.map(\.1))
        }
    }

    @Test func removingWhatIsNotThereChangesNothing() {
        var heap = DeadlineHeap<Int>()
        heap.push(1, at: .seconds(2), order: 1)
        heap.push(2, at: .seconds(1), order: 2)
        #expect(heap.remove { $0.element == 3 } == nil)
        #expect(heap.count == 2)
        #expect(heap.pop()?.element == 2)
    }
}
