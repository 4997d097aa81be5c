/// A binary min-heap of values keyed by a deadline and a tie-breaking order, earliest first.
///
/// The one heap behind every timer in Harald: an engine's `DeadlineSchedule` and the
/// simulator's virtual clock. Keys are compared as whole seconds and attoseconds (integer
/// comparisons are much cheaper than `Duration`'s), then by `order`, so two deadlines that are
/// equal come out in the order they went in when callers pass increasing orders.
///
/// Public only so that its inlinable code is specialised where it is used (the virtual clock,
/// the engines' schedules): this toolchain does not inline `package` inlinable code across
/// modules, and the unspecialised heap cost the fan-in benchmark type-metadata lookups on every
/// timer. Apps have no use for it.
public struct DeadlineHeap<Element> {
    /// One value in the heap with its key.
    public struct Entry {
        /// The deadline's whole seconds.
        public let seconds: Int64
        /// The deadline's attoseconds past ``seconds``.
        public let attoseconds: Int64
        /// The tie-breaker between equal deadlines (lower first).
        public let order: UInt64
        /// The value pushed.
        public let element: Element

        /// The deadline this entry was pushed with.
        @inlinable
        public var deadline: Duration { Duration(secondsComponent: seconds, attosecondsComponent: attoseconds) }

        @inlinable
        init(seconds: Int64, attoseconds: Int64, order: UInt64, element: Element) {
            self.seconds = seconds
            self.attoseconds = attoseconds
            self.order = order
            self.element = element
        }

        @inlinable
        static func < (a: Entry, b: Entry) -> Bool {
            if a.seconds != b.seconds { return a.seconds < b.seconds }
            if a.attoseconds != b.attoseconds { return a.attoseconds < b.attoseconds }
            return a.order < b.order
        }
    }

    @usableFromInline var entries: [Entry] = []

    /// An empty heap.
    @inlinable
    public init() {}

    /// The earliest entry, nil when the heap is empty.
    @inlinable
    public var top: Entry? { entries.first }
    /// Entries in the heap.
    @inlinable
    public var count: Int { entries.count }
    /// True when the heap holds nothing.
    @inlinable
    public var isEmpty: Bool { entries.isEmpty }

    /// Adds `element` due at `deadline`; `order` breaks ties between equal deadlines.
    @inlinable
    public mutating func push(_ element: Element, at deadline: Duration, order: UInt64) {
        let (seconds, attoseconds) = deadline.components
        entries.append(Entry(seconds: seconds, attoseconds: attoseconds, order: order, element: element))
        siftUp(from: entries.count - 1)
    }

    /// Removes and returns the earliest entry.
    @inlinable
    @discardableResult
    public mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let earliest = entries.removeLast()
        siftDown(from: 0)
        return earliest
    }

    /// Removes and returns the first entry (in storage order, not deadline order) that matches
    /// `predicate`, keeping the rest a heap; nil when none matches. Linear in the heap's size:
    /// for owners that cancel seldom.
    @inlinable
    @discardableResult
    public mutating func remove(where predicate: (Entry) -> Bool) -> Entry? {
        guard let index = entries.firstIndex(where: predicate) else { return nil }
        entries.swapAt(index, entries.count - 1)
        let removed = entries.removeLast()
        guard index < entries.count else { return removed }
        // The entry moved into `index` may belong above or below it.
        siftDown(from: siftUp(from: index))
        return removed
    }

    /// Moves the entry at `index` up while it is earlier than its parent; returns where it ends.
    @inlinable
    @discardableResult
    mutating func siftUp(from index: Int) -> Int {
        entries.withUnsafeMutableBufferPointer { heap in
            var child = index
            while child > 0 {
                let parent = (child - 1) / 2
                guard heap[child] < heap[parent] else { break }
                heap.swapAt(child, parent)
                child = parent
            }
            return child
        }
    }

    /// Moves the entry at `index` down while a child is earlier than it.
    @inlinable
    mutating func siftDown(from index: Int) {
        entries.withUnsafeMutableBufferPointer { heap in
            var parent = index
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
    }

    /// Drops the entries matching `shouldRemove` (for owners that delete lazily and sweep now
    /// and then); what is left, sorted, is again a heap.
    @inlinable
    public mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
        entries.removeAll(where: shouldRemove)
        entries.sort(by: <)
    }
}

extension DeadlineHeap: Sendable where Element: Sendable {}
extension DeadlineHeap.Entry: Sendable where Element: Sendable {}
