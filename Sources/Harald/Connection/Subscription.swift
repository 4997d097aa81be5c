import Foundation
import HaraldCodec
import HaraldCore

/// What a subscription does with a notified value that does not decode.
public enum DecodingFailurePolicy: Hashable, Sendable {
    /// Skip the value and count it (``Subscription/decodingFailures``); the stream goes on.
    case skip
    /// End the stream by throwing ``BluetoothError/decoding(_:)``.
    case fail
}

/// Decoded values of a characteristic the app subscribed to, in the order the peripheral sent
/// them.
///
/// Iterate it with `for try await`, from one task at a time. The loop ends by throwing
/// ``BluetoothError/disconnected(_:)`` when the connection goes away (or its handle
/// disconnects), ``BluetoothError/serviceChanged(_:)`` when the peripheral changed the service
/// (a Service Changed indication), and normally after ``PeripheralConnection/unsubscribe(_:)``.
/// Values the app was too slow to take are dropped by the buffering policy and counted in
/// ``droppedCount``.
///
/// Notifications are turned off as soon as the subscription ends, unless another subscriber of
/// the link still wants them: when ``PeripheralConnection/unsubscribe(_:)`` is called, when the
/// task of a loop waiting on it is cancelled, or when the last copy of the subscription and of
/// its iterators is released — so `for try await value in try await connection.subscribe(...)`
/// ends it the moment the loop ends, by `break`, `return` or an error. The clean-up's CCCD write
/// has its own deadline; a failure is logged and counted, never thrown at a later call. A second loop waiting on the same subscription while
/// one already waits throws ``BluetoothError/misuse(_:)`` (subscribe twice for two consumers).
/// A subscription, and each iterator made from it, keeps its ``PeripheralConnection`` alive while
/// it exists: a loop over a subscription that nothing else holds keeps the connection to the end.
public struct Subscription<Value: ByteDecodable & Sendable>: AsyncSequence, Sendable {
    /// One decoded value per notification or indication.
    public typealias Element = Value

    let updates: ValueUpdates
    let failures: FailureCounter
    let policy: DecodingFailurePolicy

    /// Values dropped because the buffer was full.
    public var droppedCount: Int { updates.droppedCount }
    /// Values skipped because they did not decode.
    public var decodingFailures: Int { failures.value.count }
    /// The last decoding error seen, if any.
    public var lastDecodingError: ByteDecodingError? { failures.value.last }

    /// Decodes each notified or indicated value as it arrives; values that fail to decode are skipped
    /// and counted, or end the loop, as the subscription's ``DecodingFailurePolicy`` says.
    public struct AsyncIterator: AsyncIteratorProtocol {
        // Inlinable, so an app's loop decodes with code specialized for its value type (no
        // generic metadata lookups per value).
        @usableFromInline var base: ValueUpdates.AsyncIterator
        @usableFromInline let updates: ValueUpdates
        @usableFromInline let failures: FailureCounter
        @usableFromInline let policy: DecodingFailurePolicy
        @usableFromInline let ended: EndFlag
        /// The connection handle, kept alive while the loop runs: `for try await v in try await
        /// makeSubscription()` keeps no other reference to the subscription once the loop started.
        @usableFromInline let owner: (any AnyObject & Sendable)?
        /// Waits until the connection has forgotten the characteristic a Service Changed ended
        /// the subscription on, so that subscribing again right after finds it anew.
        @usableFromInline let settleServiceChange: (@Sendable () async -> Void)?

        /// The next decoded value; nil when the subscription ended normally, ``BluetoothError`` when the
        /// link dropped or decoding failed under the failing policy.
        @inlinable
        public mutating func next() async throws -> Value? {
            try await next(isolation: nil)
        }

        /// The next value, resumed on the caller's actor (what `for try await` calls): a loop on
        /// an actor waits for values without hopping off its actor and back for each one.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Value? {
            while let bytes = await base.next(isolation: actor) {
                do {
                    return try Value(decoding: bytes)
                } catch {
                    failures.record(error)
                    if policy == .fail { throw BluetoothError.decoding(error) }
                }
            }
            if updates.hadConcurrentConsumers, !ended.value, updates.endError == nil {
                throw BluetoothError.misuse("two loops iterate one Subscription at once; subscribe once per consumer")
            }
            // The stream ended: by unsubscribing or because the value source went away (normal
            // ends), or because the link dropped (the backend says so).
            if ended.value { return nil }
            if let error = updates.endError {
                if case .serviceChanged = error, let settleServiceChange { await settleServiceChange() }
                throw error
            }
            return nil
        }
    }

    let ended: EndFlag
    /// The connection handle the subscription came from, kept alive while the subscription is.
    let owner: (any AnyObject & Sendable)?
    let settleServiceChange: (@Sendable () async -> Void)?

    init(
        updates: ValueUpdates, failures: FailureCounter, policy: DecodingFailurePolicy, ended: EndFlag, owner: (any AnyObject & Sendable)? = nil,
        settleServiceChange: (@Sendable () async -> Void)? = nil
    ) {
        self.updates = updates
        self.failures = failures
        self.policy = policy
        self.ended = ended
        self.owner = owner
        self.settleServiceChange = settleServiceChange
    }

    /// The loop over the subscription's values; only one loop may wait at a time.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: updates.makeAsyncIterator(), updates: updates, failures: failures, policy: policy, ended: ended, owner: owner,
            settleServiceChange: settleServiceChange)
    }
}

/// Decoding failures of a subscription: how many, and the last one.
@usableFromInline
struct DecodingFailures: Sendable {
    @usableFromInline var count = 0
    @usableFromInline var last: ByteDecodingError?
    @usableFromInline init() {}
}

/// The failure count a subscription and its iterators share.
@usableFromInline
typealias FailureCounter = Locked<DecodingFailures>

extension Locked where Value == DecodingFailures {
    @usableFromInline
    func record(_ error: ByteDecodingError) {
        withLock { failures in
            failures.count += 1
            failures.last = error
        }
    }
}

/// Set once when a subscription is ended on purpose, so its stream's end is not mistaken for a
/// disconnection.
@usableFromInline
typealias EndFlag = Locked<Bool>
