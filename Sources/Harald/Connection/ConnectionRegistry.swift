import HaraldCore
import Logging

/// The links a ``Central`` holds, one per peripheral: connecting to a peripheral that already
/// has a link (or an attempt under way) shares it instead of opening a second one.
///
/// A link leaves the registry when it ends, so a later connect opens a fresh one and the
/// registry never holds more than the live links.
final class ConnectionRegistry: Sendable {
    private enum Entry {
        case connecting(ConnectAttempt)
        case connected(SharedLink)
    }

    private let entries = Locked<[PeripheralIdentifier: Entry]>([:])

    /// Everything a new link is made with.
    struct LinkSettings: Sendable {
        var clock: any Clock<Duration>
        var logger: Logger
        var cleanUpTimeout: Duration
    }

    /// A link to `peripheral` owned once more by the caller: the live one, the one being
    /// connected, or a new attempt made with `connect`. Waits until `deadline` (nil: until
    /// connected or cancelled).
    func link(
        to peripheral: PeripheralIdentifier, deadline: CallDeadline?, starter: TaskStarter, settings: LinkSettings,
        connect: @escaping @Sendable () async throws(BluetoothError) -> any ConnectionBackend
    ) async throws(BluetoothError) -> SharedLink {
        while true {
            let attempt: ConnectAttempt? = entries.withLock { entries in
                switch entries[peripheral] {
                case .connected(let link):
                    // A closing link is on its way out: connect anew.
                    if link.addOwner() { return nil }
                case .connecting(let attempt):
                    attempt.join()
                    return attempt
                case nil:
                    break
                }
                let attempt = ConnectAttempt(
                    starter: starter, connect: connect,
                    adopt: { [weak self] backend in self?.adopt(backend, settings: settings) ?? SharedLink(backend: backend, settings: settings) },
                    failed: { [weak self] in self?.forgetAttempt(to: peripheral) })
                attempt.join()
                entries[peripheral] = .connecting(attempt)
                return attempt
            }
            guard let attempt else {
                // The live link: the owner count was taken above.
                if case .connected(let link) = entries.withLock({ $0[peripheral] }) { return link }
                continue
            }
            let result: Result<SharedLink, BluetoothError>
            if let deadline {
                let remaining: Duration
                do { remaining = try deadline.remaining("connect to \(peripheral)") } catch {
                    attempt.leaveWithoutWaiting()
                    throw error
                }
                result = await Self.wait(for: attempt, at_most: remaining, clock: settings.clock)
                    ?? .failure(.timeout(operation: "connect to \(peripheral)", after: deadline.timeout))
            } else {
                result = await attempt.wait()
            }
            switch result {
            case .success(let link): return link
            case .failure(.disconnected(.localRequest)) where !Task.isCancelled:
                // The link came up and was closed before this caller could own it: try again.
                continue
            case .failure(let error): throw error
            }
        }
    }

    /// Waits for `attempt` at most `timeout`; nil when the time ran out first. A link that came
    /// up in the same instant is still returned (its owner count is taken), never dropped.
    private static func wait(for attempt: ConnectAttempt, at_most timeout: Duration, clock: any Clock<Duration>) async
        -> Result<SharedLink, BluetoothError>?
    {
        await withTaskGroup(of: Result<SharedLink, BluetoothError>?.self) { group in
            group.addTask { await attempt.wait() }
            group.addTask {
                do { try await clock.sleep(for: timeout) } catch {}
                return nil
            }
            var outcome: Result<SharedLink, BluetoothError>?
            var timedOut = false
            for await finished in group {
                group.cancelAll()
                guard let finished else {
                    if outcome == nil { timedOut = true }
                    continue
                }
                // The waiter's own result: a success always wins (it owns the link).
                if case .success = finished { return finished }
                outcome = finished
            }
            return timedOut ? nil : outcome
        }
    }

    /// Registers a connection made by an attempt (or restored by the system) as the peripheral's
    /// link, and watches it so it leaves the registry when it ends.
    func adopt(_ backend: any ConnectionBackend, settings: LinkSettings) -> SharedLink {
        let link = SharedLink(backend: backend, settings: settings)
        let peripheral = backend.peripheral
        entries.withLock { $0[peripheral] = .connected(link) }
        backend.taskStarter.start { [weak self] in
            let reason = await backend.disconnection()
            link.ended.set(reason)
            link.finishChanges()
            self?.entries.withLock { entries in
                if case .connected(let current) = entries[peripheral], current === link { entries[peripheral] = nil }
            }
        }
        backend.taskStarter.start {
            for await change in backend.serviceChanges() { await link.apply(change) }
        }
        return link
    }

    private func forgetAttempt(to peripheral: PeripheralIdentifier) {
        entries.withLock { entries in
            if case .connecting = entries[peripheral] { entries[peripheral] = nil }
        }
    }

    /// The live link to `peripheral`, if there is one.
    func currentLink(to peripheral: PeripheralIdentifier) -> SharedLink? {
        entries.withLock { entries in
            if case .connected(let link) = entries[peripheral] { return link }
            return nil
        }
    }

    /// How many peripherals have a link or an attempt under way.
    var count: Int { entries.withLock { $0.count } }
}

extension SharedLink {
    init(backend: any ConnectionBackend, settings: ConnectionRegistry.LinkSettings) {
        var logger = settings.logger
        logger[metadataKey: "peripheral"] = "\(backend.peripheral)"
        self.init(backend: backend, clock: settings.clock, logger: logger, cleanUpTimeout: settings.cleanUpTimeout)
    }
}
