import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// One minute of the band's activity history, with its time.
public struct MiBandActivityRecord: Hashable, Sendable {
    /// The start of the minute.
    public var timestamp: Date
    /// What the band recorded in that minute.
    public var sample: MiBandActivitySample

    /// A record for the minute starting at `timestamp`.
    public init(timestamp: Date, sample: MiBandActivitySample) {
        self.timestamp = timestamp
        self.sample = sample
    }
}

/// The band's activity fetch as a `RecordTransfer`, for `SynchronizationFlow` (which adds
/// progress and resuming after a disconnection).
///
/// Record `index` is the `index`-th minute delivered since ``since``; a resumed transfer asks the
/// band for the minute after the last record received. Each connection is authenticated first
/// when a ``key`` is given.
public struct MiBandActivityTransfer: RecordTransfer {
    /// One minute of history.
    public typealias Record = MiBandActivityRecord

    /// The first minute wanted.
    public let since: Date
    /// The auth key, or nil to skip authentication.
    public let key: MiBandKey?
    /// How long to wait for a control reply or the next data packet.
    public var replyTimeout: Duration = .seconds(10)
    private let resume = ResumePoints()

    /// A transfer from `since` on; deadlines run on the clock of each connection it is given.
    public init(since: Date, key: MiBandKey? = .default) {
        self.since = since
        self.key = key
    }

    private func band(_ connection: PeripheralConnection) -> MiBand2 {
        var band = MiBand2(connection: connection)
        band.replyTimeout = replyTimeout
        return band
    }

    private func start(from index: Int) -> Date {
        resume.point(for: index) ?? since.addingTimeInterval(TimeInterval(index) * 60)
    }

    /// Authenticates (when a key is set) and asks the band how many records it holds from the
    /// resume point on (`01 01 <timestamp>` → `10 01 01 <count> <first minute>`).
    public func recordCount(from index: Int, over connection: PeripheralConnection) async throws -> Int? {
        let band = band(connection)
        if let key { try await band.authenticate(key: key) }
        let (count, first) = try await band.startFetch(since: start(from: index))
        resume.setAnnounced(index: index, count: count, first: first)
        return Int(count)
    }

    /// Fetches the records (`02`, then packets on 0x0005 and `10 02 01` on 0x0004).
    public func fetchRecords(
        from index: Int, over connection: PeripheralConnection, deliver: (MiBandActivityRecord) async throws -> Void
    ) async throws {
        let band = band(connection)
        let announced: (count: UInt32, first: Date)
        if let known = resume.announced(index: index) {
            announced = known
        } else {
            if let key { try await band.authenticate(key: key) }
            announced = try await band.startFetch(since: start(from: index))
        }
        var position = index
        try await band.transfer(count: announced.count, first: announced.first) { record in
            try await deliver(record)
            position += 1
            resume.set(point: record.timestamp.addingTimeInterval(60), for: position)
        }
    }
}

extension MiBand2 {
    /// Fetches the activity history from `since` on over this connection (already
    /// authenticated), reporting progress as `SynchronizationFlow` does. For a fetch that
    /// resumes after a disconnection, run `activitySynchronization(central:peripheral:since:key:)`.
    public func fetchActivity(
        since: Date, progress: @escaping @Sendable (SynchronizationFlow<MiBandActivityTransfer>.Progress) -> Void = { _ in }
    ) async throws -> [MiBandActivityRecord] {
        progress(.connected(attempt: 0))
        let (count, first) = try await startFetch(since: since)
        progress(.expecting(Int(count)))
        var records: [MiBandActivityRecord] = []
        records.reserveCapacity(Int(min(count, 100_000)))  // the count is at most maximumActivityRecords
        try await transfer(count: count, first: first) { record in
            records.append(record)
            progress(.received(records.count, total: Int(count)))
        }
        progress(.finished(records.count))
        return records
    }

    /// A synchronization of the activity history from `since` on that connects, authenticates
    /// with `key` and resumes after disconnections.
    public static func activitySynchronization(
        central: Central, peripheral: PeripheralIdentifier, since: Date, key: MiBandKey? = .default,
        reconnect: ReconnectPolicy = ReconnectPolicy()
    ) -> SynchronizationFlow<MiBandActivityTransfer> {
        SynchronizationFlow(
            central: central, peripheral: peripheral, services: services,
            transfer: MiBandActivityTransfer(since: since, key: key), reconnect: reconnect)
    }

    /// The most records one fetch takes: a year of one-minute samples (527,040). The band
    /// announces the count itself; a larger one is refused with ``MiBandError/tooManyRecords(announced:)``
    /// before any record is fetched, so a faulty band cannot make the app hold an unbounded
    /// history (a record takes 16 bytes in an array: about 8.4 MB at the limit).
    public static let maximumActivityRecords: UInt32 = 366 * 24 * 60

    /// Activity data packets a fetch holds while it decodes; one dropped ends the fetch with
    /// ``MiBandError/packetOutOfOrder(expected:received:)``.
    static let dataBufferPackets = 512
    /// Control-point replies a fetch holds (the band sends one or two).
    static let controlBufferReplies = 8

    /// Sends the fetch start and returns the announced record count and first minute.
    func startFetch(since: Date) async throws -> (count: UInt32, first: Date) {
        let subscription = try await connection.subscribe(Characteristics.activityControl, buffering: .oldest(Self.controlBufferReplies), timeout: replyTimeout)
        return try await connection.ending(subscription) {
            let command = MiBandActivityFetchCommand.start(since: MiBandTimestamp(since))
            try await connection.write(try command.encodedBytes(), to: Characteristics.activityControl, timeout: replyTimeout)
            let bytes = try await ReplyInbox(subscription, on: connection).next(within: replyTimeout, clock: clock, operation: "activity fetch start")
            switch try MiBandActivityFetchReply.miBandDecoding(bytes) {
            case let .started(count, from):
                guard count <= Self.maximumActivityRecords else { throw MiBandError.tooManyRecords(announced: count) }
                return (count, from.date)
            case let .refused(status): throw MiBandError.fetchRefused(status: status.rawValue)
            case .finished: throw MiBandError.unexpectedReply(expected: "the reply to the fetch start", received: bytes)
            }
        }
    }

    /// Sends `02` and collects `count` records, checking packet order, then waits for the end.
    func transfer(count: UInt32, first: Date, _ deliver: (MiBandActivityRecord) async throws -> Void) async throws {
        let control = try await connection.subscribe(Characteristics.activityControl, buffering: .oldest(Self.controlBufferReplies), timeout: replyTimeout)
        let data = try await connection.subscribe(Characteristics.activityData, buffering: .oldest(Self.dataBufferPackets), timeout: replyTimeout)
        try await connection.ending(control) {
            try await connection.ending(data) {
                try await connection.write(
                    try MiBandActivityFetchCommand.fetch.encodedBytes(), to: Characteristics.activityControl, timeout: replyTimeout)
                let packets = ReplyInbox(data, on: connection)
                var received: UInt32 = 0
                var counter: UInt8 = 0
                while received < count {
                    let bytes = try await packets.next(within: replyTimeout, clock: clock, operation: "activity data")
                    let packet = try MiBandActivityPacket.miBandDecoding(bytes)
                    guard packet.counter == counter else { throw MiBandError.packetOutOfOrder(expected: counter, received: packet.counter) }
                    counter &+= 1
                    guard UInt64(received) + UInt64(packet.samples.count) <= UInt64(count) else {
                        throw MiBandError.tooManyRecords(announced: count)
                    }
                    for sample in packet.samples {
                        try await deliver(MiBandActivityRecord(timestamp: first.addingTimeInterval(TimeInterval(received) * 60), sample: sample))
                        received += 1
                    }
                }
                let bytes = try await ReplyInbox(control, on: connection).next(within: replyTimeout, clock: clock, operation: "activity fetch end")
                switch try MiBandActivityFetchReply.miBandDecoding(bytes) {
                case .finished(.success): return
                case let .finished(status): throw MiBandError.fetchFailed(status: status.rawValue)
                default: throw MiBandError.unexpectedReply(expected: "the end of the transfer", received: bytes)
                }
            }
        }
    }
}

/// Where each record index resumes (the minute after the record before it), and the count a
/// fetch start announced, shared by the connection attempts of one synchronization.
final class ResumePoints: Sendable {
    private struct State {
        var points: [Int: Date] = [:]
        var pending: (index: Int, count: UInt32, first: Date)?
    }

    private let state = Locked(State())

    func point(for index: Int) -> Date? { state.withLock { $0.points[index] } }
    func set(point: Date, for index: Int) { state.withLock { $0.points = [index: point] } }
    func setAnnounced(index: Int, count: UInt32, first: Date) { state.withLock { $0.pending = (index, count, first) } }

    /// The announcement for `index`, used once.
    func announced(index: Int) -> (count: UInt32, first: Date)? {
        state.withLock { state in
            defer { state.pending = nil }
            guard let pending = state.pending, pending.index == index else { return nil }
            return (pending.count, pending.first)
        }
    }
}
