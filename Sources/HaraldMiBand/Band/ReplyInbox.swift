import Harald
import HaraldCodec
import HaraldCore

/// Runs `body`, failing with ``MiBandError/noReply(_:after:)`` when it has not finished after
/// `timeout` on `clock`: the kit's typed timeout over the public `withDeadline` (a structured
/// race; the loser is cancelled).
func withReplyDeadline<T: Sendable>(
    _ timeout: Duration, clock: any Clock<Duration>, operation: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    guard let value = try await withDeadline(timeout, clock: clock, body) else {
        throw MiBandError.noReply(operation, after: timeout)
    }
    return value
}

/// The notifications of one subscription, taken one at a time with a deadline each.
///
/// Reads take turns: a read that starts while another is under way waits for it (each lasts at
/// most its timeout), so two reads never wait on the subscription at once.
actor ReplyInbox<Value: ByteDecodable & Sendable> {
    private var iterator: Subscription<Value>.AsyncIterator
    private let turns = Turns()
    nonisolated let subscription: Subscription<Value>
    /// The connection the subscription is on: the inbox runs on its link's serial domain.
    private nonisolated let connection: PeripheralConnection
    nonisolated var unownedExecutor: UnownedSerialExecutor { connection.unownedExecutor }

    init(_ subscription: Subscription<Value>, on connection: PeripheralConnection) {
        self.subscription = subscription
        self.connection = connection
        self.iterator = subscription.makeAsyncIterator()
    }

    /// The next notified value. A timeout ends the subscription's stream, so after one the inbox
    /// is done.
    func next(within timeout: Duration, clock: any Clock<Duration>, operation: String) async throws -> Value {
        guard await turns.take() else { throw CancellationError() }
        defer { turns.end() }
        return try await withReplyDeadline(timeout, clock: clock, operation: operation) { [self] in
            guard let value = try await self.read() else { throw MiBandError.notificationsEnded(operation) }
            return value
        }
    }

    /// The next value from the subscription (only ever one at a time: the caller holds the turn).
    private func read() async throws -> Value? {
        var reading = iterator
        defer { iterator = reading }
        return try await reading.next(isolation: self)
    }
}

extension ByteDecodable {
    /// Decodes, reporting failure as ``MiBandError/malformed(_:)``.
    static func miBandDecoding(_ bytes: [UInt8]) throws(MiBandError) -> Self {
        do { return try Self(decoding: bytes) } catch { throw MiBandError.malformed(error) }
    }
}

extension PeripheralConnection {
    /// Runs `body`, then ends `subscription` (also when `body` throws).
    nonisolated func ending<Value, Result: Sendable>(
        _ subscription: Subscription<Value>, _ body: () async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body()
        } catch {
            await unsubscribe(subscription)
            throw error
        }
        await unsubscribe(subscription)
        return result
    }
}
