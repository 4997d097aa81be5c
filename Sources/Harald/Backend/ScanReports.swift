import HaraldCore

/// The advertisements a backend reports for one scan, with a bounded buffer between the radio
/// and the app's loop.
///
/// A scan in a crowded room can report hundreds of advertisements a second; when the loop falls
/// behind, the oldest waiting reports are dropped (the newest say more about who is around now)
/// and counted in ``droppedCount``. The buffer never grows past ``ScanRequest/bufferLimit``.
public struct ScanReports: AsyncSequence, Sendable {
    /// Each report is one received advertisement (or scan response) with its RSSI.
    public typealias Element = Advertisement

    private let stream: AsyncThrowingStream<Advertisement, any Error>
    private let dropped: Locked<Int>

    /// Reports dropped so far because the loop was not taking them.
    public var droppedCount: Int { dropped.value }

    /// A push-fed scan (HCI reports, CoreBluetooth delegate calls) and the continuation a
    /// backend feeds it through.
    public static func makeStream(bufferLimit: Int) -> (reports: ScanReports, continuation: Continuation) {
        let dropped = Locked(0)
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Advertisement.self, throwing: (any Error).self, bufferingPolicy: .bufferingNewest(Swift.max(1, bufferLimit)))
        return (ScanReports(stream: stream, dropped: dropped), Continuation(base: continuation, dropped: dropped))
    }

    /// A pull-fed scan (the simulator computes each next advertisement when asked): nothing
    /// waits, so nothing is dropped.
    public init(unfolding next: @escaping @Sendable () async throws -> Advertisement?) {
        self.init(stream: AsyncThrowingStream(unfolding: next), dropped: Locked(0))
    }

    private init(stream: AsyncThrowingStream<Advertisement, any Error>, dropped: Locked<Int>) {
        self.stream = stream
        self.dropped = dropped
    }

    /// The producing end of a push-fed scan.
    public struct Continuation: Sendable {
        let base: AsyncThrowingStream<Advertisement, any Error>.Continuation
        let dropped: Locked<Int>

        /// Hands an advertisement to the scan; when the buffer is full the oldest waiting one
        /// is dropped and counted.
        public func yield(_ advertisement: Advertisement) {
            if case .dropped = base.yield(advertisement) { dropped.withLock { $0 += 1 } }
        }

        /// Ends the scan, with `error` for the loop to throw when given.
        public func finish(throwing error: (any Error)? = nil) { base.finish(throwing: error) }

        /// Runs `handler` once when the scan ends: finished, or the loop stopped.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) {
            base.onTermination = { _ in handler() }
        }
    }

    /// Takes the scan's reports in the order the radio delivered them, less any dropped.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Advertisement, any Error>.AsyncIterator
        /// The next report, waiting for the radio if none is buffered; nil when the scan ended, or the
        /// error it ended with.
        public mutating func next() async throws -> Advertisement? { try await base.next() }
    }

    /// The one loop over the reports (a scan has one consumer).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}
