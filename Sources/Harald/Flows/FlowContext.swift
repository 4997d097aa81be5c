import Foundation
import HaraldCodec

extension Central {
    /// Runs `body` as a flow: an async function that reacts to ``FlowEvent``s and starts actions
    /// (scan, connect, prepare, subscribe) whose outcomes come back as further events.
    ///
    /// Everything the flow starts runs as child tasks of this call: when `body` returns or
    /// throws, or the calling task is cancelled, its scans stop, its background actions are
    /// cancelled, and its connections are closed (except those passed to
    /// ``FlowContext/keep(_:)``). The event stream belongs to this one call, so a flow that
    /// follows can never receive a stale event of this one, nor this one an event of the next.
    ///
    /// ```swift
    /// let bpm = try await central.flow { context in
    ///     for await event in context.events {
    ///         switch event {
    ///         case .poweredOn: context.startScan(ScanRequest(services: [ServiceSpec.heartRate.uuid]))
    ///         case let .discovered(advertisement): context.stopScan(); context.connect(to: advertisement)
    ///         case let .connected(connection): context.prepare(connection, services: [.heartRate])
    ///         case let .ready(connection): context.subscribe(connection, to: .heartRateMeasurement)
    ///         case let .received(_, _, bytes): return try HeartRateMeasurement(decoding: bytes).heartRate
    ///         default: continue
    ///         }
    ///     }
    ///     throw CancellationError()
    /// }
    /// ```
    public func flow<Result: Sendable>(
        buffering: Int = 256, _ body: (FlowContext) async throws -> Result
    ) async throws -> Result {
        let (events, sink) = AsyncStream<FlowEvent>.makeStream(bufferingPolicy: .bufferingOldest(max(16, buffering)))
        // Actions hand their work to a runner child task, which starts each piece in its own task
        // group: every action is structured under this call, without capturing a task group.
        let (jobs, jobSink) = AsyncStream<@Sendable () async -> Void>.makeStream()
        let context = FlowContext(central: self, events: events, sink: sink, jobs: jobSink)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { actions in
                    actions.addTask { await context.watchRadio() }
                    for await job in jobs { actions.addTask { await job() } }
                    actions.cancelAll()
                }
            }
            defer {
                sink.finish()
                jobSink.finish()
                group.cancelAll()
            }
            do {
                let result = try await body(context)
                await context.closeConnections()
                return result
            } catch {
                await context.closeConnections()
                throw error
            }
        }
    }
}

/// A flow's handle on the world: its event stream, and actions whose outcomes arrive as events.
///
/// The actions return at once; their work runs as child tasks of the flow.
public final class FlowContext: @unchecked Sendable {
    // @unchecked Sendable: `scanStop` and `connections` are only touched with `lock` held;
    // `central`, `events`, `sink` and `jobs` are immutable and Sendable.
    /// The flow's events, in the order they happened. Ends when the flow ends.
    public let events: AsyncStream<FlowEvent>
    /// The central the flow runs on.
    public let central: Central
    private let sink: AsyncStream<FlowEvent>.Continuation
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    private let lock = NSLock()
    private var scanStop: ParkingFlag?
    private var connections: [PeripheralIdentifier: (connection: PeripheralConnection, kept: Bool)] = [:]

    init(
        central: Central, events: AsyncStream<FlowEvent>, sink: AsyncStream<FlowEvent>.Continuation,
        jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    ) {
        self.central = central
        self.events = events
        self.sink = sink
        self.jobs = jobs
    }

    private func spawn(_ work: @escaping @Sendable () async -> Void) {
        jobs.yield(work)
    }

    private func emit(_ event: FlowEvent) { sink.yield(event) }

    // MARK: Actions

    /// Starts scanning; ``FlowEvent/discovered(_:)`` follows for each match. A running scan of
    /// this flow is replaced.
    public func startScan(_ request: ScanRequest = ScanRequest()) {
        stopScan()
        let stop = ParkingFlag()
        lock.withLock { scanStop = stop }
        let scan = central.scan(request)
        spawn { [self] in
            emit(.scanStarted)
            let failure: BluetoothError? = await withTaskGroup(of: BluetoothError?.self) { group in
                group.addTask {
                    do {
                        for try await advertisement in scan { self.emit(.discovered(advertisement)) }
                    } catch let error as BluetoothError {
                        return error
                    } catch {}
                    return nil
                }
                group.addTask {
                    await stop.wait()
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            emit(.scanStopped(error: failure))
        }
    }

    /// Stops the flow's scan, if one runs.
    public func stopScan() {
        let stop = lock.withLock { () -> ParkingFlag? in
            defer { scanStop = nil }
            return scanStop
        }
        stop?.set()
    }

    /// Connects; ``FlowEvent/connected(_:)`` or ``FlowEvent/connectionFailed(_:_:)`` follows, and
    /// ``FlowEvent/disconnected(_:reason:)`` when the link later drops.
    public func connect(to advertisement: Advertisement, services: [ServiceSpec] = [], timeout: Duration? = nil) {
        connect(to: advertisement.peripheral, services: services, timeout: timeout)
    }

    /// Connects to a peripheral by identifier.
    public func connect(to peripheral: PeripheralIdentifier, services: [ServiceSpec] = [], timeout: Duration? = nil) {
        spawn { [self] in
            let connection: PeripheralConnection
            do {
                connection = try await central.connect(to: peripheral, services: services, timeout: timeout)
            } catch {
                emit(.connectionFailed(peripheral, Self.bluetoothError(error)))
                return
            }
            lock.withLock { connections[peripheral] = (connection, false) }
            emit(.connected(connection))
            let reason = await connection.disconnection()
            let closedByFlow = lock.withLock { connections.removeValue(forKey: peripheral) == nil }
            emit(.disconnected(peripheral, reason: closedByFlow ? nil : reason))
        }
    }

    /// Discovers the given services and their characteristics; ``FlowEvent/ready(_:)`` follows.
    public func prepare(_ connection: PeripheralConnection, services: [ServiceSpec]) {
        spawn { [self] in
            do {
                try await connection.prepare(services)
                emit(.ready(connection))
            } catch {
                emit(.failed("prepare", Self.bluetoothError(error)))
            }
        }
    }

    /// Subscribes; each value arrives as ``FlowEvent/received(_:characteristic:value:)``.
    public func subscribe<V, A: SubscribeAccess>(_ connection: PeripheralConnection, to characteristic: Characteristic<V, A>) {
        spawn { [self] in
            do {
                let found = try await connection.characteristic(characteristic.uuid, service: characteristic.service)
                let values = try await connection.subscribe(found, as: [UInt8].self)
                for try await value in values {
                    emit(.received(connection.peripheral, characteristic: characteristic.uuid, value: value))
                }
            } catch is CancellationError {
            } catch {
                emit(.failed("subscribe to \(characteristic.uuid)", Self.bluetoothError(error)))
            }
        }
    }

    /// Keeps `connection` open after the flow ends (the caller owns it from then on).
    public func keep(_ connection: PeripheralConnection) {
        lock.withLock { connections[connection.peripheral]?.kept = true }
    }

    /// Closes one of the flow's connections now.
    public func disconnect(_ connection: PeripheralConnection) async {
        lock.withLock { _ = connections.removeValue(forKey: connection.peripheral) }
        await connection.disconnect()
    }

    // MARK: Internals

    func watchRadio() async {
        var last: RadioState?
        for await state in central.radioStates() {
            guard state != last else { continue }
            last = state
            switch state {
            case .poweredOn: emit(.poweredOn)
            case .poweredOff, .unauthorized, .unsupported: emit(.poweredOff(state))
            case .unknown, .resetting: continue
            }
        }
    }

    func closeConnections() async {
        let toClose = lock.withLock { () -> [PeripheralConnection] in
            let open = connections.values.filter { !$0.kept }.map(\.connection)
            connections = connections.filter { $0.value.kept }
            return open
        }
        for connection in toClose { await connection.disconnect() }
    }

    static func bluetoothError(_ error: any Error) -> BluetoothError {
        if let error = error as? BluetoothError { return error }
        return .backend(String(describing: error))
    }
}

/// A flag a task can wait for, set from anywhere.
final class ParkingFlag: @unchecked Sendable {
    // @unchecked Sendable: `isSet` and `waiters` are only touched with `lock` held; waiters are
    // resumed after it is released, once each.
    private let lock = NSLock()
    private var isSet = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func set() {
        let toResume = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isSet = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in toResume { waiter.resume() }
    }

    /// Returns once set, or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    if isSet || Task.isCancelled { return true }
                    waiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            set()
        }
    }
}
