import HaraldCodec

/// The RR intervals of a Heart Rate Measurement: times between successive R waves, in units of
/// 1/1024 s, oldest first.
///
/// The first ``inlineCapacity`` intervals live inside the value, so decoding a measurement
/// from a default 20-byte notification (at most 9 intervals) allocates nothing; longer lists
/// (possible with a larger ATT MTU) spill into an array.
public struct RRIntervals: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible {
    /// How many intervals are stored without allocating.
    public static let inlineCapacity = 9

    /// The first intervals, four to a word: interval `i` is bits `16 * (i % 4)` up of word `i / 4`.
    ///
    /// Packed words set with shifts, rather than a tuple of `UInt16` written through
    /// `withUnsafeMutableBytes`, so an inlined `append` never takes the address of the caller's
    /// local value (which forced it onto the stack behind a stack-protector check).
    @usableFromInline var words: (UInt64, UInt64, UInt64)
    @usableFromInline var overflow: [UInt16]
    @usableFromInline var storedCount: Int

    /// No intervals.
    // The properties are set here rather than given default values: a default value is an
    // out-of-line initializer call from other modules, paid on every decode.
    @inlinable
    public init() {
        words = (0, 0, 0)
        overflow = []
        storedCount = 0
    }

    /// Intervals from raw values in 1/1024 s.
    public init(_ rawValues: some Sequence<UInt16>) {
        self.init()
        for value in rawValues { append(value) }
    }

    /// Intervals written as a list of 1/1024 s counts, e.g. `[1024, 980]` (1 s, then about 0.96 s).
    public init(arrayLiteral elements: UInt16...) { self.init(elements) }

    /// Intervals from seconds, rounded to the nearest 1/1024 s; nil when one is negative,
    /// not finite, or longer than 65535/1024 s (about 64 s).
    public init?(seconds: some Sequence<Double>) {
        self.init()
        for value in seconds {
            let raw = (value * 1024).rounded()
            guard raw.isFinite, raw >= 0, raw <= 65535 else { return nil }
            append(UInt16(raw))
        }
    }

    /// Always 0: the oldest interval.
    @inlinable public var startIndex: Int { 0 }
    /// The number of intervals: one past the newest.
    @inlinable public var endIndex: Int { storedCount }

    /// The interval at `position`, in 1/1024 s.
    @inlinable
    public subscript(position: Int) -> UInt16 {
        precondition(position >= 0 && position < storedCount, "RR interval index out of range")
        if position < Self.inlineCapacity {
            let word: UInt64
            switch position >> 2 {
            case 0: word = words.0
            case 1: word = words.1
            default: word = words.2
            }
            return UInt16(truncatingIfNeeded: word >> UInt64((position & 3) &* 16))
        }
        return overflow[position &- Self.inlineCapacity]
    }

    /// Adds an interval (1/1024 s) at the end.
    // Always inlined, with the rare spill into `overflow` kept out of line: left to itself the
    // optimiser called `append` out of line for every interval a decoder read.
    @inlinable @inline(__always)
    public mutating func append(_ raw: UInt16) {
        if storedCount < Self.inlineCapacity {
            // Slots past `storedCount` are zero (intervals are only ever appended), so OR sets one.
            let bits = UInt64(raw) << UInt64((storedCount & 3) &* 16)
            switch storedCount >> 2 {
            case 0: words.0 |= bits
            case 1: words.1 |= bits
            default: words.2 |= bits
            }
        } else {
            appendOverflow(raw)
        }
        storedCount &+= 1
    }

    /// Stores an interval past the inline capacity.
    @usableFromInline @inline(never)
    mutating func appendOverflow(_ raw: UInt16) {
        overflow.append(raw)
    }

    /// The interval at `position` in seconds.
    @inlinable
    public func seconds(at position: Int) -> Double { Double(self[position]) / 1024 }

    /// Every interval in seconds.
    public var seconds: [Double] { map { Double($0) / 1024 } }

    /// Every interval as a `Duration` (exact: 1/1024 s is a whole number of attoseconds).
    public var durations: [Duration] {
        map { raw in
            Duration(
                secondsComponent: Int64(raw / 1024),
                attosecondsComponent: Int64(raw % 1024) * 976_562_500_000_000)
        }
    }

    /// Equal when both hold the same intervals in the same order, however they are stored.
    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    /// Hashes the count and the intervals in order, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storedCount)
        for value in self { hasher.combine(value) }
    }

    /// Each interval in units of 1/1024 s, oldest first, e.g. `[1024/1024 s, 980/1024 s]`.
    public var description: String { "[" + map { "\($0)/1024 s" }.joined(separator: ", ") + "]" }
}
