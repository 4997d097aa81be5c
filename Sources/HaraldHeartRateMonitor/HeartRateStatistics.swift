/// Live statistics over a stream of heart-rate readings, in fixed memory: a rolling average of
/// the heart rate, the lowest and highest rate of the session, the recent rates (for a
/// sparkline) and RMSSD, the usual short-term heart-rate-variability figure.
///
/// A pure value: feed it readings with ``add(_:)``; nothing is allocated after `init`. Readings
/// whose sensor reports lost skin contact are ignored (their values are guesses), and the RR
/// chain restarts after them, so no successive difference spans the gap. RR intervals are used
/// as sent: no ectopic-beat filtering.
public struct HeartRateStatistics: Hashable, Sendable {
    /// How many of the latest heart rates the average and ``recentHeartRates`` cover.
    public let window: Int
    /// How many of the latest successive RR differences RMSSD covers.
    public let rrWindow: Int
    private var rates: Ring<Int>
    private var differences: Ring<Double>
    private var lastInterval: Double?
    /// Readings counted so far (those with skin contact).
    public private(set) var count = 0
    /// Readings ignored because the sensor had lost skin contact.
    public private(set) var ignoredCount = 0
    /// Lowest heart rate of the session, in beats per minute.
    public private(set) var minimum: Int?
    /// Highest heart rate of the session, in beats per minute.
    public private(set) var maximum: Int?

    /// - Parameters:
    ///   - window: latest heart rates kept for the average and the sparkline (at least 1).
    ///   - rrWindow: latest successive RR differences kept for RMSSD (at least 1).
    public init(window: Int = 30, rrWindow: Int = 60) {
        self.window = max(1, window)
        self.rrWindow = max(1, rrWindow)
        rates = Ring(capacity: self.window, filler: 0)
        differences = Ring(capacity: self.rrWindow, filler: 0)
    }

    /// Adds a reading.
    public mutating func add(_ reading: HeartRateReading) {
        add(beatsPerMinute: reading.beatsPerMinute, rrIntervals: reading.rrIntervals, contact: reading.hasContact)
    }

    /// Adds a heart rate (beats per minute) and the RR intervals (seconds) measured with it.
    public mutating func add(beatsPerMinute: Int, rrIntervals: [Double] = [], contact: Bool = true) {
        guard contact else {
            ignoredCount += 1
            lastInterval = nil
            return
        }
        count += 1
        rates.append(beatsPerMinute)
        minimum = Swift.min(minimum ?? beatsPerMinute, beatsPerMinute)
        maximum = Swift.max(maximum ?? beatsPerMinute, beatsPerMinute)
        for interval in rrIntervals where interval.isFinite {
            if let lastInterval { differences.append((interval - lastInterval) * 1000) }
            lastInterval = interval
        }
    }

    /// Mean heart rate of the last ``window`` readings, in beats per minute (nil before the first).
    public var averageHeartRate: Double? {
        guard !rates.isEmpty else { return nil }
        return Double(rates.reduce(0, +)) / Double(rates.count)
    }

    /// The last ``window`` heart rates, oldest first.
    public var recentHeartRates: [Int] { Array(rates) }

    /// Root mean square of the successive RR-interval differences over the last ``rrWindow``
    /// differences, in milliseconds (nil until two consecutive intervals arrived).
    public var rmssd: Double? {
        guard !differences.isEmpty else { return nil }
        return (differences.reduce(0) { $0 + $1 * $1 } / Double(differences.count)).squareRoot()
    }
}

/// A fixed-capacity ring: appending past the capacity overwrites the oldest element.
struct Ring<Element: Hashable & Sendable>: Hashable, Sendable, Sequence {
    private var storage: [Element]
    private var start = 0
    private(set) var count = 0

    init(capacity: Int, filler: Element) {
        storage = Array(repeating: filler, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count < storage.count {
            storage[(start + count) % storage.count] = element
            count += 1
        } else {
            storage[start] = element
            start = (start + 1) % storage.count
        }
    }

    /// Rings are equal when they hold the same elements in the same order (slots not yet
    /// written, and where the oldest element sits in storage, do not matter).
    static func == (lhs: Ring, rhs: Ring) -> Bool { lhs.elementsEqual(rhs) }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }

    func makeIterator() -> AnyIterator<Element> {
        var index = 0
        return AnyIterator { [storage, start, count] in
            guard index < count else { return nil }
            defer { index += 1 }
            return storage[(start + index) % storage.count]
        }
    }
}
