/// When and how fast to reconnect after a connection drops.
///
/// Backoff doubles (by ``multiplier``) from ``initialDelay`` up to ``maximumDelay``; the
/// ``shouldReconnect`` hook can veto any attempt (say, when the user has left the screen, or the
/// peer disconnected on purpose).
public struct ReconnectPolicy: Sendable {
    /// Attempts after the first connection; 0 disables reconnection. With
    /// ``resetsAfterConnecting``, attempts in a row without a connection in between.
    public var maximumAttempts: Int
    /// Whether a successful reconnection starts the count (and the backoff) afresh, so a device
    /// that drops now and then is reconnected every time while one that never comes back is given
    /// up after ``maximumAttempts``. False (the default) counts every attempt of the session.
    public var resetsAfterConnecting: Bool
    /// The wait before the first reconnection attempt.
    public var initialDelay: Duration
    /// The factor the wait grows by after each failed attempt.
    public var multiplier: Double
    /// The longest wait between attempts.
    public var maximumDelay: Duration
    /// Called before each attempt with the reason of the last disconnection and the attempt
    /// number (1-based); return false to give up.
    public var shouldReconnect: @Sendable (DisconnectReason, Int) -> Bool

    /// A policy; by default 5 attempts, waiting 0.5 s, then doubling.
    public init(
        maximumAttempts: Int = 5, initialDelay: Duration = .milliseconds(500), multiplier: Double = 2,
        maximumDelay: Duration = .seconds(30), resetsAfterConnecting: Bool = false,
        shouldReconnect: @escaping @Sendable (DisconnectReason, Int) -> Bool = { _, _ in true }
    ) {
        self.maximumAttempts = max(0, maximumAttempts)
        self.resetsAfterConnecting = resetsAfterConnecting
        self.initialDelay = initialDelay
        self.multiplier = max(1, multiplier)
        self.maximumDelay = maximumDelay
        self.shouldReconnect = shouldReconnect
    }

    /// Never reconnect.
    public static let never = ReconnectPolicy(maximumAttempts: 0)

    /// The wait before attempt `attempt` (1-based).
    public func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(1, attempt) {
            delay = delay * multiplier
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}

extension Central {
    /// Connects to `peripheral` and runs `body` on the connection; when the connection drops
    /// during `body` — the body fails with ``BluetoothError/disconnected(_:)``, or with any error
    /// that reports a disconnection (``DisconnectionReporting``, which the kits' errors adopt) —
    /// waits per `policy`, reconnects and runs `body` again with the new connection. `run` tells
    /// the body which run it is (0 first), so it can resume where the last one stopped.
    ///
    /// `options` are those of every connect. With ``ConnectionOptions/enableAutoReconnect`` the
    /// system (CoreBluetooth on iOS 17 and macOS 14, and the simulator, which models it) makes a
    /// lost link again by itself: the loop's next connect joins that attempt instead of racing it.
    ///
    /// A failed connect counts as an attempt too; `shouldReconnect` then sees
    /// ``DisconnectReason/other(_:)`` with the connect error's description. A radio that is
    /// unsupported or unauthorized ends the loop at once (waiting does not change it), and so
    /// does a peer that removed its pairing information (no attempt can encrypt with the bond;
    /// the bond must be removed and the devices paired again). Errors
    /// other than a disconnection end the loop at once. The last connection is closed before
    /// returning, whatever happens.
    public func withReconnection<Result: Sendable>(
        to peripheral: PeripheralIdentifier, services: [ServiceSpec] = [], options: ConnectionOptions = .default, policy: ReconnectPolicy,
        connectTimeout: Duration? = nil,
        _ body: @Sendable (_ connection: PeripheralConnection, _ run: Int) async throws -> Result
    ) async throws -> Result {
        var run = 0
        var attempt = 0
        while true {
            let connection: PeripheralConnection
            do {
                connection = try await connect(to: peripheral, services: services, options: options, timeout: connectTimeout)
            } catch {
                if case .radioUnavailable(let state) = error, state == .unsupported || state == .unauthorized { throw error }
                if case .cancelled = error { throw error }
                // The peer forgot its keys: no retry can encrypt the bonded link.
                if case .peerRemovedPairingInformation = error { throw error }
                attempt += 1
                guard attempt <= policy.maximumAttempts, policy.shouldReconnect(.other(error.description), attempt) else { throw error }
                try await clock.sleep(for: policy.delay(beforeAttempt: attempt))
                continue
            }
            if policy.resetsAfterConnecting { attempt = 0 }
            do {
                let result = try await body(connection, run)
                await connection.disconnect()
                return result
            } catch {
                await connection.disconnect()
                guard let reason = (error as? any DisconnectionReporting)?.disconnectReason else { throw error }
                if reason == .peerRemovedPairingInformation { throw error }
                run += 1
                attempt += 1
                guard attempt <= policy.maximumAttempts, policy.shouldReconnect(reason, attempt) else { throw error }
                try await clock.sleep(for: policy.delay(beforeAttempt: attempt))
            }
        }
    }
}
