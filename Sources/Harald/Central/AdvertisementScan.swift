import HaraldCodec
import HaraldCore

/// Advertisements from a running scan, filtered by the request (service UUIDs, name prefix,
/// RSSI) and its duplicate policy — the same way on every backend. The scan stops when the loop
/// over it ends or its task is cancelled.
///
/// Between the radio and the loop at most ``ScanRequest/bufferLimit`` reports wait; a loop that
/// falls behind loses the oldest, counted in ``droppedCount``.
public struct AdvertisementScan: AsyncSequence, Sendable {
    public typealias Element = Advertisement

    let backend: any CentralBackend
    let request: ScanRequest
    let clock: any Clock<Duration>
    /// Shared by every copy and every loop over this scan.
    let dropped = Locked(0)

    init(backend: any CentralBackend, request: ScanRequest, clock: any Clock<Duration>) {
        self.backend = backend
        self.request = request
        self.clock = clock
    }

    /// Reports dropped so far, over every loop of this scan, because a loop was not taking them
    /// fast enough (counted as each loop takes its next advertisement).
    public var droppedCount: Int { dropped.value }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let reports: ScanReports
        var base: ScanReports.AsyncIterator
        let request: ScanRequest
        let dropped: Locked<Int>
        var droppedSeen = 0
        var seen: [PeripheralIdentifier: AdvertisingData] = [:]

        public mutating func next() async throws -> Advertisement? {
            while let advertisement = try await base.next() {
                let droppedNow = reports.droppedCount
                if droppedNow != droppedSeen {
                    dropped.withLock { [droppedSeen] in $0 += droppedNow - droppedSeen }
                    droppedSeen = droppedNow
                }
                guard request.matches(advertisement) else { continue }
                switch request.duplicates {
                case .reportAll:
                    return advertisement
                case .reportOnce:
                    if seen[advertisement.peripheral] != nil { continue }
                case .reportChanges:
                    if seen[advertisement.peripheral] == advertisement.data { continue }
                }
                // Bounded: a scan in a crowded room sees a few thousand devices at most, and the
                // map holds one entry per device.
                seen[advertisement.peripheral] = advertisement.data
                return advertisement
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let reports = backend.scan(request)
        return AsyncIterator(reports: reports, base: reports.makeAsyncIterator(), request: request, dropped: dropped)
    }

    /// The first matching advertisement; throws ``BluetoothError/timeout(operation:after:)`` when
    /// none arrives within `timeout` (on the central's clock), and ``BluetoothError/notFound(_:)``
    /// if the scan ends first. There is no default: how long to look is the app's decision.
    public func first(timeout: Duration) async throws(BluetoothError) -> Advertisement {
        try await withBluetoothErrors {
            let scan = self
            return try await withTimeout(timeout, clock: clock, operation: "scan") {
                var iterator = scan.makeAsyncIterator()
                guard let found = try await iterator.next() else { throw BluetoothError.notFound("no matching advertisement") }
                return found
            }
        }
    }
}
