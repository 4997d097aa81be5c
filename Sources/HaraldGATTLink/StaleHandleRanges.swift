import HaraldCore

/// The handle ranges Service Changed indications named since the services were last discovered:
/// an identity inside one may name an attribute that is gone or moved.
///
/// A peer decides how many indications it sends, so the list is bounded: past ``limit`` ranges
/// they collapse into one range covering them all (a wider stale range, never a narrower one).
/// Each range carries the number of the indication that named it, so a discovery clears exactly
/// what was known when it began; a change during the discovery stays stale.
struct StaleHandleRanges: Sendable {
    /// The most ranges kept apart; more collapse into one.
    static let limit = 32

    private var entries: [(range: ATTHandleRange, change: UInt64)] = []
    /// The number of the newest change recorded.
    private(set) var latestChange: UInt64 = 0

    var count: Int { entries.count }

    /// Records a change of `range`.
    mutating func add(_ range: ATTHandleRange) {
        latestChange += 1
        entries.append((range, latestChange))
        guard entries.count > Self.limit else { return }
        let start = entries.map(\.range.start).min() ?? range.start
        let end = entries.map(\.range.end).max() ?? range.end
        entries = [(ATTHandleRange(start: start, end: end), latestChange)]
    }

    /// Forgets the changes up to number `change` (those a discovery that began then has seen).
    mutating func clear(through change: UInt64) {
        entries.removeAll { $0.change <= change }
    }

    /// Whether `handle` lies in a range not rediscovered since it changed.
    func contains(_ handle: UInt16) -> Bool { entries.contains { $0.range.contains(handle) } }
}
