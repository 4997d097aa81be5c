import Harald
import HaraldCore
import HaraldProfiles

/// The measurements a heart-rate sensor notifies, as an async sequence of ``HeartRateReading``.
///
/// Iterate with `for try await`; errors are always ``HeartRateMonitorError``. The loop ends
/// normally after ``HeartRateMonitor/stop(_:)-(HeartRateReadings)`` or when the iterating task is cancelled. It
/// throws ``HeartRateMonitorError/disconnected(_:)`` when the link drops, and
/// ``HeartRateMonitorError/timeout(operation:after:)`` when no measurement arrives within the
/// stall timeout (notifications are then turned off, so a silent sensor never hangs the loop).
/// Measurements that do not decode are skipped and counted in ``malformedCount``.
public struct HeartRateReadings: AsyncSequence, Sendable {
    /// One reading per Heart Rate Measurement notification: beats per minute, sensor contact, energy
    /// expended and RR intervals as the strap sent them.
    public typealias Element = HeartRateReading

    let subscription: Subscription<HeartRateMeasurement>
    let connection: PeripheralConnection
    /// The longest wait for the next measurement; nil waits as long as the link lasts.
    public let stallTimeout: Duration?

    /// Measurements dropped because the consumer was slower than the sensor.
    public var droppedCount: Int { subscription.droppedCount }
    /// Measurements skipped because they did not decode.
    public var malformedCount: Int { subscription.decodingFailures }

    /// Decodes each Heart Rate Measurement notification into a reading and watches for the stall
    /// timeout.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Subscription<HeartRateMeasurement>.AsyncIterator
        let readings: HeartRateReadings
        var finished = false

        /// The next reading; nil after the readings were stopped or the task cancelled. Throws
        /// ``HeartRateMonitorError``: ``HeartRateMonitorError/disconnected(_:)`` when the link drops,
        /// ``HeartRateMonitorError/timeout(operation:after:)`` when the sensor stays quiet past the stall
        /// timeout.
        public mutating func next() async throws -> HeartRateReading? {
            guard !finished else { return nil }
            do {
                let measurement = try await nextMeasurement()
                if measurement == nil { finished = true }
                return measurement.map(HeartRateReading.init)
            } catch {
                finished = true
                throw HeartRateMonitorError.from(error)
            }
        }

        private mutating func nextMeasurement() async throws -> HeartRateMeasurement? {
            guard let stallTimeout = readings.stallTimeout else { return try await base.next() }
            // Set once by the watchdog when the stall timeout passed.
            let stalled = Locked(false)
            let subscription = readings.subscription
            let connection = readings.connection
            let clock = connection.clock
            return try await withThrowingTaskGroup(of: Void.self) { group in
                // The watchdog ends the subscription when the sensor goes quiet; the pending
                // `next()` then returns, and the flag turns that end into a timeout.
                group.addTask {
                    try await clock.sleep(for: stallTimeout)
                    stalled.withLock { $0 = true }
                    await connection.unsubscribe(subscription)
                }
                defer { group.cancelAll() }
                let measurement = try await base.next()
                if stalled.value {
                    throw HeartRateMonitorError.timeout(operation: "waiting for a heart rate measurement", after: stallTimeout)
                }
                return measurement
            }
        }
    }

    /// The loop over the readings; only one loop may wait at a time.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: subscription.makeAsyncIterator(), readings: self)
    }
}

/// Battery Level (0x2A19) notifications, in percent (0…100), or nil when the sensor reports its
/// level as not known (0xFF). Errors are ``HeartRateMonitorError``.
public struct BatteryLevels: AsyncSequence, Sendable {
    /// The battery level in percent (0…100), or nil when the sensor reports it as not known (0xFF).
    public typealias Element = Int?

    let subscription: Subscription<BatteryLevel>

    /// Decodes each Battery Level notification into a percentage.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Subscription<BatteryLevel>.AsyncIterator

        /// The next level in percent, `.some(nil)` when the sensor does not know it, or nil when the
        /// notifications ended. Throws ``HeartRateMonitorError``.
        public mutating func next() async throws -> Int?? {
            do { return try await base.next().map { $0.percent.map(Int.init) } } catch { throw HeartRateMonitorError.from(error) }
        }
    }

    /// The loop over the battery levels; only one loop may wait at a time.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: subscription.makeAsyncIterator()) }
}
