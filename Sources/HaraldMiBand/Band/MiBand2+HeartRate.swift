import Harald
import HaraldCore
import HaraldProfiles

extension MiBand2 {
    /// Takes one heart-rate measurement: stops continuous and single modes, starts a single
    /// measurement (`15 02 01` on 0x2A39) and returns the first value notified on 0x2A37, in bpm.
    /// Throws ``MiBandError/noReply(_:after:)`` after ``measurementTimeout``.
    public func heartRate() async throws -> UInt16 {
        let subscription = try await connection.subscribe(
            Characteristics.heartRateMeasurement, buffering: .newest(4), onDecodingFailure: .fail, timeout: replyTimeout)
        return try await connection.ending(subscription) {
            for command: MiBandHeartRateCommand in [.setMode(.continuous, enabled: false), .setMode(.single, enabled: false), .setMode(.single, enabled: true)]
            {
                try await connection.write(command, to: Characteristics.heartRateControl, timeout: replyTimeout)
            }
            let measurement = try await ReplyInbox(subscription, on: connection).next(
                within: measurementTimeout, clock: clock, operation: "heart-rate measurement")
            return measurement.heartRate
        }
    }

    /// Continuous heart-rate measurements (bpm), one about every second.
    ///
    /// Iterating starts continuous mode (`15 01 01`) and, while the loop runs, sends the keep-alive
    /// (`16`) every `keepAliveInterval`. Leaving the loop (or cancelling its task) sends the stop
    /// command (`15 01 00`); without it the band stops on its own once keep-alives cease. A wait
    /// longer than ``measurementTimeout`` for the next value throws
    /// ``MiBandError/noReply(_:after:)``.
    public func heartRateUpdates(keepAliveInterval: Duration = .seconds(12)) -> MiBandHeartRateUpdates {
        MiBandHeartRateUpdates(band: self, keepAliveInterval: keepAliveInterval)
    }
}

/// Continuous heart-rate measurements from a Mi Band, in bpm (see ``MiBand2/heartRateUpdates(keepAliveInterval:)``).
public struct MiBandHeartRateUpdates: AsyncSequence, Sendable {
    /// One heart-rate value in beats per minute, as the band notifies it.
    public typealias Element = UInt16

    let band: MiBand2
    let keepAliveInterval: Duration

    /// One continuous-measurement session: the first `next()` starts it, keep-alives run while it
    /// waits, and it stops when the iterator goes away.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let session: ContinuousHeartRateSession

        /// The next heart rate in bpm; throws ``MiBandError/noReply(_:after:)`` when the band stays quiet
        /// longer than ``MiBand2/measurementTimeout``.
        public mutating func next() async throws -> UInt16? {
            try await session.next()
        }
    }

    /// A new continuous-measurement session for this loop.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(session: ContinuousHeartRateSession(band: band, keepAliveInterval: keepAliveInterval))
    }
}

/// One run of continuous mode: started by the first `next()`, kept alive while `next()` waits,
/// stopped when the iterator goes away.
///
/// An actor, and its `next()` calls take turns: copies of an iterator share the session, and
/// however they are used, one value is awaited at a time.
actor ContinuousHeartRateSession {
    private let band: MiBand2
    nonisolated var unownedExecutor: UnownedSerialExecutor { band.connection.unownedExecutor }
    private let keepAliveInterval: Duration
    private let turns = Turns()
    private var inbox: ReplyInbox<HeartRateMeasurement>?
    private var subscription: Subscription<HeartRateMeasurement>?
    /// When the last keep-alive (or the start) went out, as time since ``started``.
    private var lastKeepAlive: Duration = .zero
    /// Started by the first reading of ``elapsed()``; times are durations since then.
    private var started: Stopwatch?
    private var finished = false

    init(band: MiBand2, keepAliveInterval: Duration) {
        self.band = band
        self.keepAliveInterval = keepAliveInterval
    }

    deinit {
        guard let subscription, !finished else { return }
        // The loop ended (break, throw or cancellation): stop continuous mode. `next()` can no
        // longer run, so this is the last use of the connection by this session.
        let connection = band.connection
        let timeout = band.replyTimeout
        connection.taskStarter.start {
            try? await connection.write(
                MiBandHeartRateCommand.setMode(.continuous, enabled: false), to: MiBand2.Characteristics.heartRateControl, timeout: timeout)
            await connection.unsubscribe(subscription)
        }
    }

    func next() async throws -> UInt16? {
        guard await turns.take() else { throw CancellationError() }
        defer { turns.end() }
        if finished { return nil }
        do {
            let inbox = try await start()
            return try await nextValue(inbox)
        } catch {
            // A cancelled task cannot write any more: the iterator's deinit stops the band.
            if Task.isCancelled { throw error }
            finished = true
            try? await band.connection.write(
                MiBandHeartRateCommand.setMode(.continuous, enabled: false), to: MiBand2.Characteristics.heartRateControl,
                timeout: band.replyTimeout)
            if let subscription { await band.connection.unsubscribe(subscription) }
            throw error
        }
    }

    private func start() async throws -> ReplyInbox<HeartRateMeasurement> {
        if let inbox { return inbox }
        let connection = band.connection
        let subscription = try await connection.subscribe(
            MiBand2.Characteristics.heartRateMeasurement, buffering: .newest(16), timeout: band.replyTimeout)
        self.subscription = subscription
        for command: MiBandHeartRateCommand in [.setMode(.single, enabled: false), .setMode(.continuous, enabled: true)] {
            try await connection.write(command, to: MiBand2.Characteristics.heartRateControl, timeout: band.replyTimeout)
        }
        let inbox = ReplyInbox(subscription, on: connection)
        self.inbox = inbox
        lastKeepAlive = elapsed()
        return inbox
    }

    /// Time since this session's clock reading at start (the first call starts it).
    private func elapsed() -> Duration {
        guard let started else {
            started = Stopwatch(band.clock)
            return .zero
        }
        return started.elapsed
    }

    /// How long until the next keep-alive is due.
    private func untilKeepAlive() -> Duration { lastKeepAlive + keepAliveInterval - elapsed() }

    private func noteKeepAlive() { lastKeepAlive = elapsed() }

    private func nextValue(_ inbox: ReplyInbox<HeartRateMeasurement>) async throws -> UInt16 {
        let band = self.band
        return try await withThrowingTaskGroup(of: UInt16?.self) { group in
            group.addTask {
                try await inbox.next(within: band.measurementTimeout, clock: band.clock, operation: "continuous heart rate").heartRate
            }
            group.addTask { [self] in
                // Keep-alives while the value is awaited; ends when cancelled.
                while true {
                    let wait = await untilKeepAlive()
                    if wait > .zero { try await band.clock.sleep(for: wait) }
                    try await band.connection.write(
                        MiBandHeartRateCommand.keepAlive, to: MiBand2.Characteristics.heartRateControl, timeout: band.replyTimeout)
                    await noteKeepAlive()
                }
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let value = result { return value }
            }
            throw MiBandError.notificationsEnded("continuous heart rate")
        }
    }
}
