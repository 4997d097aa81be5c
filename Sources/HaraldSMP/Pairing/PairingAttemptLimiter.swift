import HaraldCore

/// Repeated Attempts protection (Core spec Vol 3 Part H §2.3.6): after a pairing with a peer
/// fails, a new attempt with that peer must wait, and the wait doubles with every further
/// failure, so guessing a passkey or probing a key one attempt at a time gets slow.
///
/// Share one limiter between every pairing of a device (it outlives connections). A responder
/// answers a Pairing Request that comes too soon with Pairing Failed, Repeated Attempts (0x09);
/// an initiator does not start one. A peer is named by any of its addresses (the address it
/// connected from, and its identity address when it is known): a wait recorded under either
/// applies to both.
///
/// An attacker can change its address for every attempt, so the limiter also counts failures
/// across all peers: past ``Policy/globalAllowance`` failures (with no pause of
/// ``Policy/forgetAfter`` between them), every new attempt, from any address, waits
/// ``Policy/globalFirstWait``, doubling with each further failure up to
/// ``Policy/globalLongestWait``. A success does not clear that count (an attacker could mix in
/// pairings of its own that succeed); only the quiet time does.
///
/// The waits run on the injected clock. The table is bounded: beyond ``Policy/capacity`` peers,
/// those forgotten anyway (no failure for ``Policy/forgetAfter``) go first, then the one whose
/// wait ends soonest.
public actor PairingAttemptLimiter {
    /// How long to wait, and how many peers to remember.
    public struct Policy: Hashable, Sendable {
        /// The wait after the first failure; it doubles with each consecutive one.
        public var firstWait: Duration
        /// The longest wait, however many failures in a row.
        public var longestWait: Duration
        /// A peer without a failure for this long starts again from ``firstWait``.
        public var forgetAfter: Duration
        /// The most peers remembered at once (at least 1).
        public var capacity: Int
        /// Failures from all peers together (each within ``forgetAfter`` of the one before) that
        /// pass before the global wait starts; nil turns the global limit off.
        public var globalAllowance: Int?
        /// The wait every new attempt makes after the first failure past the allowance; it
        /// doubles with each further failure.
        public var globalFirstWait: Duration
        /// The longest global wait (it applies to every peer, so it stays shorter than a peer's).
        public var globalLongestWait: Duration

        /// A policy; the defaults wait 2 s after a peer's failure, doubling up to 64 s, and, past
        /// 4 failures from any peers, 1 s before any attempt, doubling up to 32 s.
        public init(
            firstWait: Duration = .seconds(2), longestWait: Duration = .seconds(64), forgetAfter: Duration = .seconds(600),
            capacity: Int = 64, globalAllowance: Int? = 4, globalFirstWait: Duration = .seconds(1),
            globalLongestWait: Duration = .seconds(32)
        ) {
            self.firstWait = max(firstWait, .zero)
            self.longestWait = max(longestWait, self.firstWait)
            self.globalFirstWait = max(globalFirstWait, .zero)
            self.globalLongestWait = max(globalLongestWait, self.globalFirstWait)
            self.forgetAfter = max(forgetAfter, self.longestWait, self.globalLongestWait)
            self.capacity = max(capacity, 1)
            self.globalAllowance = globalAllowance.map { max($0, 0) }
        }
    }

    private struct Record {
        /// Consecutive failures (at least 1 while recorded).
        var failures: Int
        /// Clock time (since the limiter was made) of the last failure.
        var lastFailure: Duration
        /// Clock time until which a new attempt is refused.
        var waitEnds: Duration
    }

    /// How long attempts wait after failures.
    public let policy: Policy
    private let stopwatch: Stopwatch
    private var records: [BluetoothAddress: Record] = [:]
    /// Failures from every peer together, for the global limit (failures counts them all).
    private var global: Record?

    /// A limiter measuring its waits on `clock`.
    public init(policy: Policy = Policy(), clock: any Clock<Duration> = ContinuousClock()) {
        self.policy = policy
        self.stopwatch = Stopwatch(clock)
    }

    /// How long a new pairing with the peer known by `addresses` must still wait; nil when it may
    /// start now.
    public func remainingWait(for addresses: BluetoothAddress...) -> Duration? {
        remainingWait(forAny: addresses)
    }

    /// ``remainingWait(for:)`` for an array of the peer's addresses.
    public func remainingWait(forAny addresses: [BluetoothAddress]) -> Duration? {
        let now = stopwatch.elapsed
        let longest = (addresses.compactMap { records[$0] } + (global.map { [$0] } ?? [])).map { $0.waitEnds - now }.max()
        guard let longest, longest > .zero else { return nil }
        return longest
    }

    /// How long any new pairing must wait because of failures from all peers together; nil when
    /// the global limit does not hold attempts back now.
    public var remainingGlobalWait: Duration? {
        guard let global else { return nil }
        let left = global.waitEnds - stopwatch.elapsed
        return left > .zero ? left : nil
    }

    /// Notes a failed pairing with the peer known by `addresses`: its next attempt waits
    /// ``Policy/firstWait`` after a first failure, twice as long after each one that follows,
    /// never more than ``Policy/longestWait``; the failure also counts towards the global limit.
    /// Returns the wait the peer's next attempt makes (the longer of the two).
    @discardableResult
    public func recordFailure(of addresses: BluetoothAddress...) -> Duration {
        recordFailure(ofAny: addresses)
    }

    /// ``recordFailure(of:)`` for an array of the peer's addresses.
    @discardableResult
    public func recordFailure(ofAny addresses: [BluetoothAddress]) -> Duration {
        let now = stopwatch.elapsed
        let previous =
            addresses.compactMap { records[$0] }.filter { now - $0.lastFailure < policy.forgetAfter }
            .map(\.failures).max() ?? 0
        let failures = min(previous, 62) + 1
        let wait = self.wait(afterFailures: failures, first: policy.firstWait, longest: policy.longestWait)
        let record = Record(failures: failures, lastFailure: now, waitEnds: now + wait)
        for address in Set(addresses) { records[address] = record }
        trim(now: now)
        return max(wait, recordGlobalFailure(now: now))
    }

    /// Counts a failure towards the global limit; returns the global wait it starts (zero
    /// within the allowance or with the limit off).
    private func recordGlobalFailure(now: Duration) -> Duration {
        guard let allowance = policy.globalAllowance else { return .zero }
        let previous = global.flatMap { now - $0.lastFailure < policy.forgetAfter ? $0.failures : nil } ?? 0
        let failures = min(previous, 1_000_000) + 1
        let beyond = failures - allowance
        let wait = beyond > 0 ? self.wait(afterFailures: min(beyond, 62), first: policy.globalFirstWait, longest: policy.globalLongestWait) : .zero
        global = Record(failures: failures, lastFailure: now, waitEnds: now + wait)
        return wait
    }

    /// Notes a successful pairing: the peer known by `addresses` starts again from no failures.
    public func recordSuccess(of addresses: BluetoothAddress...) {
        recordSuccess(ofAny: addresses)
    }

    /// ``recordSuccess(of:)`` for an array of the peer's addresses.
    public func recordSuccess(ofAny addresses: [BluetoothAddress]) {
        for address in addresses { records.removeValue(forKey: address) }
    }

    /// How many addresses the table holds (for tests of its bound).
    public var rememberedCount: Int { records.count }

    /// first × 2^(failures − 1), capped at longest, without overflowing.
    private func wait(afterFailures failures: Int, first: Duration, longest: Duration) -> Duration {
        var wait = first
        var doublings = failures - 1
        while doublings > 0, wait < longest {
            wait = wait * 2
            doublings -= 1
        }
        return min(wait, longest)
    }

    /// Keeps at most `capacity` addresses: the forgotten ones go first, then the soonest to expire.
    private func trim(now: Duration) {
        guard records.count > policy.capacity else { return }
        records = records.filter { now - $0.value.lastFailure < policy.forgetAfter }
        while records.count > policy.capacity {
            guard let soonest = records.min(by: { $0.value.waitEnds < $1.value.waitEnds })?.key else { return }
            records.removeValue(forKey: soonest)
        }
    }
}
