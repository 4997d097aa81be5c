/// A binary min-heap of values keyed by a deadline and a tie-breaking order, earliest first.
///
/// The one heap behind every timer in Harald: an engine's ``DeadlineSchedule`` and the
/// simulator's virtual clock. Keys are compared as whole seconds and attoseconds (integer
/// comparisons are much cheaper than `Duration`'s), then by `order`, so two deadlines that are
/// equal come out in the order they went in when callers pass increasing orders.
package struct DeadlineHeap<Element> {
    package struct Entry {
        package let seconds: Int64
        package let attoseconds: Int64
        package let order: UInt64
        package let element: Element

        /// The deadline this entry was pushed with.
        package var deadline: Duration { Duration(secondsComponent: seconds, attosecondsComponent: attoseconds) }

        static func < (a: Entry, b: Entry) -> Bool {
            if a.seconds != b.seconds { return a.seconds < b.seconds }
            if a.attoseconds != b.attoseconds { return a.attoseconds < b.attoseconds }
            return a.order < b.order
        }
    }

    private var entries: [Entry] = []

    /// An empty heap.
    package init() {}

    /// The earliest entry, nil when the heap is empty.
    package var top: Entry? { entries.first }
    /// Entries in the heap.
    package var count: Int { entries.count }
    package var isEmpty: Bool { entries.isEmpty }

    /// Adds `element` due at `deadline`; `order` breaks ties between equal deadlines.
    package mutating func push(_ element: Element, at deadline: Duration, order: UInt64) {
        let (seconds, attoseconds) = deadline.components
        entries.append(Entry(seconds: seconds, attoseconds: attoseconds, order: order, element: element))
        entries.withUnsafeMutableBufferPointer { heap in
            var child = heap.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child] < heap[parent] else { break }
                heap.swapAt(child, parent)
                child = parent
            }
        }
    }

    /// Removes and returns the earliest entry.
    @discardableResult
    package mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let earliest = entries.removeLast()
        entries.withUnsafeMutableBufferPointer { heap in
            var parent = 0
            let count = heap.count
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < count, heap[left] < heap[smallest] { smallest = left }
                if right < count, heap[right] < heap[smallest] { smallest = right }
                guard smallest != parent else { return }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return earliest
    }

    /// Drops the entries matching `shouldRemove` (for owners that delete lazily and sweep now
    /// and then); what is left, sorted, is again a heap.
    package mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
        entries.removeAll(where: shouldRemove)
        entries.sort(by: <)
    }
}

extension DeadlineHeap: Sendable where Element: Sendable {}
extension DeadlineHeap.Entry: Sendable where Element: Sendable {}
