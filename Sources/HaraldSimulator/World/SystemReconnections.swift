import Harald
import HaraldCodec
import HaraldCore

/// The system's automatic reconnection as iOS 17 and macOS 14 make it
/// (`ConnectionOptions.enableAutoReconnect`), modelled for the simulator: a connection made with
/// the option that the link or the peer ended — not the app — is made again by the "system" as
/// a pending connect, in virtual time, whenever the device is in range. A `connect` to the
/// device meanwhile joins that attempt; `cancelSystemConnection(to:)` stops it.
final class SystemReconnections: Sendable {
    /// How an attempt ended.
    enum Outcome: Sendable {
        case connected(any ConnectionBackend)
        case stopped
    }

    private struct Attempt {
        /// The connection whose loss started it.
        let after: ObjectIdentifier
        let task: Task<Void, Never>
        let outcome: Latch<Outcome>
    }

    private let attempts = Locked<[PeripheralIdentifier: Attempt]>([:])

    /// Starts the reconnection of `lost`'s peripheral (once per lost connection).
    func start(after lost: AutoReconnectingConnection, world: Simulator) {
        let peripheral = lost.peripheral
        let key = ObjectIdentifier(lost.identity)
        attempts.withLock { attempts in
            if let running = attempts[peripheral], running.after == key { return }
            let outcome = Latch<Outcome>()
            let task = world.clock.taskStarter.start {
                do {
                    let connection = try await world.connect(to: peripheral, timeout: nil)
                    outcome.set(.connected(AutoReconnectingConnection(inner: connection, world: world)))
                } catch {
                    outcome.set(.stopped)
                }
            }
            attempts[peripheral] = Attempt(after: key, task: task, outcome: outcome)
        }
    }

    /// True when the loss of `lost` started a reconnection that has not been stopped.
    func isReconnecting(after lost: AutoReconnectingConnection) -> Bool {
        attempts.withLock { $0[lost.peripheral]?.after == ObjectIdentifier(lost.identity) }
    }

    /// The connection the reconnection after `lost` made; nil when there is none, it stopped,
    /// or the waiting task is cancelled.
    func result(after lost: AutoReconnectingConnection) async -> (any ConnectionBackend)? {
        let key = ObjectIdentifier(lost.identity)
        guard let outcome = attempts.withLock({ $0[lost.peripheral] }).flatMap({ $0.after == key ? $0.outcome : nil }) else { return nil }
        guard case .connected(let connection) = await outcome.wait() else { return nil }
        return connection
    }

    /// The outcome of the reconnection of `peripheral` still under way, for a connect to join.
    func inFlight(to peripheral: PeripheralIdentifier) -> Latch<Outcome>? {
        attempts.withLock { attempts in
            guard let attempt = attempts[peripheral], attempt.outcome.current == nil else { return nil }
            return attempt.outcome
        }
    }

    /// Stops the reconnection of `peripheral`, if one runs.
    func cancel(_ peripheral: PeripheralIdentifier) {
        let stopped = attempts.withLock { $0.removeValue(forKey: peripheral) }
        stopped?.task.cancel()
        stopped?.outcome.set(.stopped)
    }
}

/// A simulated connection made with `ConnectionOptions.enableAutoReconnect`: the simulator's
/// connection, whose loss (not the app's disconnect) starts the system's reconnection.
struct AutoReconnectingConnection: ForwardingConnectionBackend {
    /// One object per connection: what the reconnection after its loss is keyed by.
    final class Identity: Sendable {
        /// The app closed the connection: the system does not reconnect it.
        let closedByApp = Locked(false)
    }

    let forwarded: any ConnectionBackend
    /// Weak: the world keeps the reconnections, which keep the connections they made.
    weak var world: Simulator?
    let identity = Identity()

    init(inner: any ConnectionBackend, world: Simulator) {
        self.forwarded = inner
        self.world = world
    }

    func disconnection() async -> DisconnectReason {
        let reason = await forwarded.disconnection()
        if !identity.closedByApp.value && reason != .localRequest, let world { world.reconnections.start(after: self, world: world) }
        return reason
    }

    func disconnect() async {
        identity.closedByApp.withLock { $0 = true }
        await forwarded.disconnect()
    }

    var isReconnectingBySystem: Bool { world?.reconnections.isReconnecting(after: self) ?? false }

    func systemReconnection() async -> (any ConnectionBackend)? { await world?.reconnections.result(after: self) }
}
