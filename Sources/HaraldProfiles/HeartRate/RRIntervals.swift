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

    @usableFromInline typealias Inline = (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)

    @usableFromInline var inline: Inline = (0, 0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline var overflow: [UInt16] = []
    @usableFromInline var storedCount = 0

    /// No intervals.
    @inlinable
    public init() {}

    /// Intervals from raw values in 1/1024 s.
    public init(_ rawValues: some Sequence<UInt16>) {
        for value in rawValues { append(value) }
    }

    public init(arrayLiteral elements: UInt16...) { self.init(elements) }

    /// Intervals from seconds, rounded to the nearest 1/1024 s; nil when one is negative,
    /// not finite, or longer than 65535/1024 s (about 64 s).
    public init?(seconds: some Sequence<Double>) {
        for value in seconds {
            let raw = (value * 1024).rounded()
            guard raw.isFinite, raw >= 0, raw <= 65535 else { return nil }
            append(UInt16(raw))
        }
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { storedCount }

    /// The interval at `position`, in 1/1024 s.
    @inlinable
    public subscript(position: Int) -> UInt16 {
        precondition(position >= 0 && position < storedCount, "RR interval index out of range")
        if position < Self.inlineCapacity {
            return withUnsafeBytes(of: inline) { $0.load(fromByteOffset: position &* 2, as: UInt16.self) }
        }
        return overflow[position &- Self.inlineCapacity]
    }

    /// Adds an interval (1/1024 s) at the end.
    @inlinable
    public mutating func append(_ raw: UInt16) {
        if storedCount < Self.inlineCapacity {
            let byteOffset = storedCount &* 2
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: raw, toByteOffset: byteOffset, as: UInt16.self) }
        } else {
            overflow.append(raw)
        }
        storedCount &+= 1
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

    public static func == (lhs: RRIntervals, rhs: RRIntervals) -> Bool {
        lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storedCount)
        for value in self { hasher.combine(value) }
    }

    public var description: String { "[" + map { "\($0)/1024 s" }.joined(separator: ", ") + "]" }
}
