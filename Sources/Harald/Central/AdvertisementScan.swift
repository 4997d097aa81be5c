import HaraldCodec
import HaraldCore

/// Advertisements from a running scan, filtered by the request (service UUIDs, name prefix,
/// RSSI) and its duplicate policy — the same way on every backend. The scan stops when the loop
/// over it ends or its task is cancelled.
///
/// Between the radio and the loop at most ``ScanRequest/bufferLimit`` reports wait; a loop that
/// falls behind loses the oldest, counted in ``droppedCount``.
public struct AdvertisementScan: AsyncSequence, Sendable {
    /// Each element is one advertisement that passed the request's filters and duplicate policy.
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

    /// One loop over the scan: starts the backend's scan and applies the filters and the duplicate
    /// policy to its reports.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reports: ScanReports
        var base: ScanReports.AsyncIterator
        let request: ScanRequest
        let dropped: Locked<Int>
        var droppedSeen = 0
        /// Per device: its last data, and when it was last heard (a count of reports).
        var seen: [PeripheralIdentifier: (data: AdvertisingData, heard: UInt64)] = [:]
        var reportCount = UInt64(0)

        /// The next advertisement that matches the request and, unless every report is wanted, is not a
        /// duplicate; nil when the scan ended.
        public mutating func next() async throws -> Advertisement? {
            while let advertisement = try await base.next() {
                let droppedNow = reports.droppedCount
                if droppedNow != droppedSeen {
                    dropped.withLock { [droppedSeen] in $0 += droppedNow - droppedSeen }
                    droppedSeen = droppedNow
                }
                guard request.matches(advertisement) else { continue }
                if request.duplicates == .reportAll { return advertisement }
                reportCount += 1
                let previous = seen[advertisement.peripheral]
                seen[advertisement.peripheral] = (advertisement.data, reportCount)
                switch request.duplicates {
                case .reportAll, .reportOnce:
                    if previous != nil { continue }
                case .reportChanges:
                    if previous?.data == advertisement.data { continue }
                }
                forgetLeastRecentlyHeard()
                return advertisement
            }
            return nil
        }

        /// Keeps the duplicate filter's memory bounded: devices with private addresses that
        /// rotate every few minutes would otherwise add an entry each forever. Past
        /// ``AdvertisementScan/rememberedDevices``, the least recently heard eighth is forgotten
        /// (such a device, heard again, is reported again).
        private mutating func forgetLeastRecentlyHeard() {
            guard seen.count > AdvertisementScan.rememberedDevices else { return }
            let oldest = seen.sorted { $0.value.heard < $1.value.heard }.prefix(Swift.max(1, seen.count / 8))
            for (peripheral, _) in oldest { seen[peripheral] = nil }
        }
    }

    /// How many devices a scan's duplicate filter remembers before it forgets the least
    /// recently heard.
    public static let rememberedDevices = 4096

    /// Starts a scan on the backend for this loop; it stops when the loop ends.
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
