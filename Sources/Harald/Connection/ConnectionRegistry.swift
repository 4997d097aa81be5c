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
        /// The link was lost and the system is making it again by itself (CoreBluetooth's
        /// automatic reconnection); a connect starts an attempt, which joins the system's.
        case reconnecting
    }

    private let entries = Locked<[PeripheralIdentifier: Entry]>([:])
    /// The tasks waiting for the system to bring a lost link back, one per peripheral; cancelled
    /// when the registry goes (the central they work for is gone), so none waits for ever.
    private let reconnectionWaits = Locked<[PeripheralIdentifier: Task<Void, Never>]>([:])

    deinit {
        for wait in reconnectionWaits.value.values { wait.cancel() }
        // A link the system brought back by itself that no handle ever took: with the central
        // gone, nothing can take it any more.
        for case .connected(let link) in entries.value.values where link.ownerCount == 0 && !link.isClosing {
            link.closeLater()
        }
    }

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
            enum Found {
                case live(SharedLink)
                case attempt(ConnectAttempt, isNew: Bool)
            }
            let found: Found = entries.withLock { entries in
                switch entries[peripheral] {
                case .connected(let link):
                    // The owner count is taken here; a closing link is on its way out: connect anew.
                    if link.addOwner() { return .live(link) }
                case .connecting(let attempt):
                    attempt.join()
                    return .attempt(attempt, isNew: false)
                case .reconnecting, nil:
                    break
                }
                let announce = entries[peripheral] == nil
                let attempt = ConnectAttempt(
                    starter: starter, connect: connect,
                    adopt: { [weak self] backend in self?.adopt(backend, settings: settings) ?? SharedLink(backend: backend, settings: settings) },
                    failed: { [weak self] in self?.forgetAttempt(to: peripheral) })
                attempt.join()
                entries[peripheral] = .connecting(attempt)
                return .attempt(attempt, isNew: announce)
            }
            let attempt: ConnectAttempt
            switch found {
            case .live(let link): return link
            case .attempt(let waiting, let isNew):
                if isNew { publish(.connecting, for: peripheral) }
                attempt = waiting
            }
            let result: Result<SharedLink, BluetoothError>
            if let deadline {
                let remaining: Duration
                do { remaining = try deadline.remaining("connect to \(peripheral)") } catch {
                    attempt.leaveWithoutWaiting()
                    throw error
                }
                result =
                    await Self.wait(for: attempt, at_most: remaining, clock: settings.clock)
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
    ///
    /// A peripheral that already has a live link keeps it (the system reporting a connection
    /// again, a second consumer of restorations, an attempt and the system's reconnection of
    /// the same link): that link is returned. A link the system brought up by itself is
    /// adopted with no owner, and stays up until the app disconnects it or owns it and lets go.
    func adopt(_ backend: any ConnectionBackend, settings: LinkSettings) -> SharedLink {
        let peripheral = backend.peripheral
        let fresh = SharedLink(backend: backend, settings: settings)
        let link: SharedLink = entries.withLock { entries in
            if case .connected(let existing) = entries[peripheral], existing.ended.current == nil, !existing.isClosing {
                return existing
            }
            entries[peripheral] = .connected(fresh)
            return fresh
        }
        guard link === fresh else { return link }
        publish(.connected, for: peripheral)
        backend.taskStarter.start { [weak self] in
            let reason = await backend.disconnection()
            link.ended.set(reason)
            link.finishChanges()
            let reconnecting = backend.isReconnectingBySystem
            let removed: Bool =
                self?.entries.withLock { entries in
                    guard case .connected(let current) = entries[peripheral], current === link else { return false }
                    entries[peripheral] = reconnecting ? .reconnecting : nil
                    return true
                } ?? false
            guard removed else { return }
            guard reconnecting else {
                self?.publish(.disconnected, for: peripheral)
                return
            }
            self?.followSystemReconnection(of: backend, settings: settings)
        }
        backend.taskStarter.start {
            for await change in backend.serviceChanges() { await link.apply(change) }
        }
        return link
    }

    /// Announces that the system is bringing `ended`'s link up again by itself, and waits for
    /// it in a task of its own (holding the registry only weakly): the new connection is adopted;
    /// when the reconnection stops, the peripheral is disconnected.
    private func followSystemReconnection(of ended: any ConnectionBackend, settings: LinkSettings) {
        let peripheral = ended.peripheral
        publish(.reconnecting, for: peripheral)
        let wait = ended.taskStarter.start { [weak self] in
            let next = await ended.systemReconnection()
            self?.systemReconnectionEnded(of: peripheral, with: next, settings: settings)
        }
        let replaced = reconnectionWaits.withLock { $0.updateValue(wait, forKey: peripheral) }
        replaced?.cancel()
    }

    private func systemReconnectionEnded(of peripheral: PeripheralIdentifier, with next: (any ConnectionBackend)?, settings: LinkSettings) {
        reconnectionWaits.withLock { _ = $0.removeValue(forKey: peripheral) }
        if let next {
            _ = adopt(next, settings: settings)
            return
        }
        let forgotten: Bool = entries.withLock { entries in
            guard case .reconnecting = entries[peripheral] else { return false }
            entries[peripheral] = nil
            return true
        }
        if forgotten { publish(.disconnected, for: peripheral) }
    }

    private func forgetAttempt(to peripheral: PeripheralIdentifier) {
        let forgotten: Bool = entries.withLock { entries in
            guard case .connecting = entries[peripheral] else { return false }
            entries[peripheral] = nil
            return true
        }
        if forgotten { publish(.disconnected, for: peripheral) }
    }

    // MARK: Link states

    private struct Observers {
        var next: UInt64 = 0
        var byPeripheral: [PeripheralIdentifier: [UInt64: AsyncStream<PeripheralLinkState>.Continuation]] = [:]
    }

    private let observers = Locked(Observers())

    /// The state of `peripheral`'s link now, from the registry.
    func state(of peripheral: PeripheralIdentifier) -> PeripheralLinkState {
        entries.withLock { entries in
            switch entries[peripheral] {
            case .connecting: .connecting
            case .connected(let link): link.ended.current == nil ? .connected : .disconnected
            case .reconnecting: .reconnecting
            case nil: .disconnected
            }
        }
    }

    /// `peripheral`'s link state now, then every change, until the consumer stops.
    func states(of peripheral: PeripheralIdentifier) -> AsyncStream<PeripheralLinkState> {
        let (stream, continuation) = AsyncStream.makeStream(of: PeripheralLinkState.self, bufferingPolicy: .bufferingNewest(8))
        let id: UInt64 = observers.withLock { observers in
            observers.next += 1
            observers.byPeripheral[peripheral, default: [:]][observers.next] = continuation
            return observers.next
        }
        continuation.yield(state(of: peripheral))
        let observers = self.observers
        continuation.onTermination = { _ in
            observers.withLock { observers in
                observers.byPeripheral[peripheral]?[id] = nil
                if observers.byPeripheral[peripheral]?.isEmpty == true { observers.byPeripheral[peripheral] = nil }
            }
        }
        return stream
    }

    private func publish(_ state: PeripheralLinkState, for peripheral: PeripheralIdentifier) {
        let watching = observers.withLock { Array(($0.byPeripheral[peripheral] ?? [:]).values) }
        for continuation in watching { continuation.yield(state) }
    }

    /// The live link to `peripheral`, if there is one (a closing one included).
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

/// Whether a central has a link to a peripheral, for code that shows a device's status whoever
/// connects to it (``Central/linkStates(of:)``).
public enum PeripheralLinkState: Hashable, Sendable {
    /// No link and no attempt.
    case disconnected
    /// A connect is under way (pending connects included).
    case connecting
    /// The link was lost and the system is making it again by itself (CoreBluetooth's automatic
    /// reconnection, iOS 17 and macOS 14, for a connection made with
    /// ``ConnectionOptions/enableAutoReconnect``): `.connected` follows when it is up, and
    /// ``Central/connect(to:services:options:timeout:)-(PeripheralIdentifier,_,_,_)`` returns it then; `.disconnected` if the
    /// system stops (``Central/disconnectAll(from:)`` stops it).
    case reconnecting
    /// A link is up.
    case connected
}
