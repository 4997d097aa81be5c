import Harald
import HaraldHeartRateMonitor

/// The heart-rate app without its UI: it scans for straps, connects to the chosen one, shows its
/// readings and battery, and publishes all of it as ``HeartRateAppState`` values.
///
/// ```swift
/// let core = HeartRateCore(central: Central(backend: backend), memory: memory)
/// core.scan()            // taken up when the run starts
/// await core.run()       // in a task (a view's `.task`); cancel the task to stop
/// ```
///
/// - ``run()`` does the work; cancelling its task stops the scan, disconnects, and returns once
///   both are done. It can run again later (a view that comes back).
/// - Actions (``scan()``, ``connect(to:)``, ``cancel()``, ``disconnect()``) can be called from
///   anywhere, before or during ``run()``; they take effect one after the other.
/// - It remembers the strap it connects to (``StrapMemory``) and, at launch, reconnects to it with
///   a pending connect, which completes whenever the strap is in range. It takes over connections
///   the system restored (``Central/restorations()``).
/// - After a lost link it reconnects, per ``reconnectPolicy``. After the user ends the connection
///   (``disconnect()``, ``cancel()``, or a new ``scan()``) it does not, and it forgets the strap,
///   so the next launch does not reconnect either.
///
/// It is an actor, not a main-actor class, so that the same code runs in a simulation on a
/// virtual clock; ``HeartRateModel`` mirrors its state on the main actor for SwiftUI.
public actor HeartRateCore {
    /// The central it scans and connects with.
    public nonisolated let central: Central
    /// Where it remembers the strap in use.
    public nonisolated let memory: any StrapMemory
    /// When to reconnect after a lost link.
    public nonisolated let reconnectPolicy: ReconnectPolicy

    /// What the screen shows now.
    public private(set) var state = HeartRateAppState() {
        didSet { if state != oldValue { publish(state) } }
    }

    /// Reconnects after every lost link, a second after the loss at first and never more than
    /// five seconds after it: each attempt is a pending connect, which waits for the strap at no
    /// cost, so a longer back-off would only delay the reconnection.
    public static let defaultReconnectPolicy = ReconnectPolicy(maximumAttempts: .max, initialDelay: .seconds(1), maximumDelay: .seconds(5))

    enum Command: Sendable {
        case scan, stopScan, connect(PeripheralIdentifier), cancel, disconnect
        case adopt(Restoration)
    }

    /// The commands of the next (or current) run.
    private struct Inbox {
        var commands: AsyncStream<Command>
        var continuation: AsyncStream<Command>.Continuation

        static func make() -> Inbox {
            let (commands, continuation) = AsyncStream.makeStream(of: Command.self)
            return Inbox(commands: commands, continuation: continuation)
        }
    }

    /// A running scan.
    private struct Job {
        let id: UInt64
        let task: Task<Void, Never>
    }

    /// The connection to one strap, reconnected after lost links until it ends.
    private struct Session {
        let id: UInt64
        let strap: PeripheralIdentifier
        let task: Task<Void, Never>
    }

    private struct Observers {
        var all: [UInt64: AsyncStream<HeartRateAppState>.Continuation] = [:]
        var next: UInt64 = 0
    }

    private nonisolated let inbox = Guarded(Inbox.make())
    private nonisolated let observers = Guarded(Observers())
    /// The radio's state, for the reconnect policy's veto (read outside the actor).
    private nonisolated let radio = Guarded(RadioState.unknown)

    private var isRunning = false
    /// Restorations are handed over once per process: the first run takes them.
    private var restorationsTaken = false
    private var lastID: UInt64 = 0
    private var scanning: Job?
    private var session: Session?
    /// Restored connections kept until the session shares their link and shows its first reading.
    private var restored: [PeripheralConnection] = []

    public init(central: Central, memory: any StrapMemory, reconnectPolicy: ReconnectPolicy = HeartRateCore.defaultReconnectPolicy) {
        self.central = central
        self.memory = memory
        self.reconnectPolicy = reconnectPolicy
    }

    // MARK: Actions

    /// Looks for heart-rate straps, ending the connection if there is one.
    public nonisolated func scan() { send(.scan) }
    /// Stops looking for straps.
    public nonisolated func stopScan() { send(.stopScan) }
    /// Connects to `strap` with a pending connect, and keeps it connected until told otherwise.
    public nonisolated func connect(to strap: PeripheralIdentifier) { send(.connect(strap)) }
    /// Stops scanning or connecting (a pending connect included) and goes back to idle.
    public nonisolated func cancel() { send(.cancel) }
    /// Disconnects from the strap, without reconnecting now or at the next launch.
    public nonisolated func disconnect() { send(.disconnect) }

    private nonisolated func send(_ command: Command) {
        inbox.withLock { $0.continuation }.yield(command)
    }

    // MARK: Running

    /// The state now, then each change (the newest, for a consumer that falls behind), until the
    /// loop stops or the current run (else the next) ends.
    public func states() -> AsyncStream<HeartRateAppState> {
        let (stream, continuation) = AsyncStream.makeStream(of: HeartRateAppState.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield(state)
        let id: UInt64 = observers.withLock { observers in
            observers.next += 1
            observers.all[observers.next] = continuation
            return observers.next
        }
        continuation.onTermination = { [observers] _ in _ = observers.withLock { $0.all.removeValue(forKey: id) } }
        return stream
    }

    /// Does the app's work until the calling task is cancelled; then stops scanning, disconnects,
    /// shows idle, ends the ``states()`` streams and returns. A second run while one is going
    /// returns at once.
    public func run() async {
        guard !isRunning else { return }
        isRunning = true
        defer { isRunning = false }
        let commands = inbox.current.commands
        let starter = central.backend.taskStarter
        var watchers = [
            starter.start { [self, central] in
                for await radio in central.radioStates() { await self.radioChanged(radio) }
            }
        ]
        if !restorationsTaken {
            restorationsTaken = true
            watchers.append(
                starter.start { [self, central] in
                    for await restoration in central.restorations() { self.send(.adopt(restoration)) }
                })
        }
        if let strap = memory.recall() { await startSession(strap) }
        // Ends when the task is cancelled.
        for await command in commands { await handle(command) }
        await stopScanning()
        await endSession()
        for watcher in watchers {
            watcher.cancel()
            await watcher.value
        }
        await releaseRestored()
        state.status = .idle
        // This run's command stream ended with its task; commands sent from now on wait for the next run.
        let ended = inbox.withLock { inbox in
            defer { inbox = Inbox.make() }
            return inbox.continuation
        }
        ended.finish()
        let observing = observers.withLock { observers in
            defer { observers.all = [:] }
            return Array(observers.all.values)
        }
        for observer in observing { observer.finish() }
    }

    private func handle(_ command: Command) async {
        switch command {
        case .scan:
            await startScan()
        case .stopScan:
            guard scanning != nil else { return }
            await stopScanning()
            state.status = .idle
        case let .connect(strap):
            await startSession(strap)
        case .cancel:
            await stopScanning()
            await endSession(byUser: true)
            state.status = .idle
        case .disconnect:
            guard let strap = session?.strap else { return }
            await endSession(byUser: true)
            state.status = .disconnected(strap, .localRequest)
        case let .adopt(restoration):
            await adopt(restoration)
        }
    }

    private func nextID() -> UInt64 {
        lastID += 1
        return lastID
    }

    // MARK: Scanning

    private func startScan() async {
        await stopScanning()
        await endSession(byUser: true)
        let id = nextID()
        let scan = central.scan(for: .heartRate)
        let task = central.backend.taskStarter.start { [self] in
            do {
                for try await advertisement in scan { await self.found(advertisement, scan: id) }
                await self.scanEnded(id, problem: nil)
            } catch {
                await self.scanEnded(id, problem: String(describing: error))
            }
        }
        scanning = Job(id: id, task: task)
        state.straps = []
        state.status = .scanning
    }

    /// Stops the scan and waits until it has stopped.
    private func stopScanning() async {
        guard let job = scanning else { return }
        scanning = nil
        job.task.cancel()
        await job.task.value
        state.straps = []
    }

    private func found(_ advertisement: Advertisement, scan id: UInt64) {
        guard scanning?.id == id else { return }
        let strap = FoundStrap(advertisement)
        if let index = state.straps.firstIndex(where: { $0.id == strap.id }) {
            state.straps[index] = strap
        } else {
            state.straps.append(strap)
        }
    }

    /// The scan ended by itself (a radio switched off, say), not by ``stopScanning()``.
    private func scanEnded(_ id: UInt64, problem: String?) {
        guard scanning?.id == id else { return }
        scanning = nil
        state.straps = []
        state.status = problem.map(HeartRateAppState.Status.failed) ?? .idle
    }

    // MARK: The session with a strap

    /// Ends any scan or session and connects to `strap`: a pending connect, then a reconnection
    /// after each lost link, until the session ends. `restoredConnection`, when the system
    /// restored one to `strap`, is held until the session's own connection shares its link.
    private func startSession(_ strap: PeripheralIdentifier, restoredConnection: PeripheralConnection? = nil) async {
        let name = state.straps.first { $0.id == strap }?.name
        await stopScanning()
        await endSession()
        if let restoredConnection { restored.append(restoredConnection) }
        let id = nextID()
        let (central, policy) = (self.central, sessionPolicy)
        let task = central.backend.taskStarter.start { [self] in
            do {
                try await central.withReconnection(
                    to: strap, services: HeartRateMonitor.services, options: Self.connectionOptions, policy: policy
                ) { connection, _ in
                    try await self.serve(connection, session: id)
                }
            } catch {
                await self.sessionEnded(id, error)
            }
        }
        session = Session(id: id, strap: strap, task: task)
        state.strapName = name
        state.status = .connecting(strap)
    }

    /// The connect options of a session: the system reconnects a lost link by itself where it
    /// can (iOS 17, macOS 14), which goes on while the app is suspended; the session's own
    /// reconnection joins it.
    static let connectionOptions = ConnectionOptions(enableAutoReconnect: true)

    /// The reconnect policy, vetoed while the radio cannot work at all (unauthorized or
    /// unsupported): connects then fail at once, and retrying them would only spin.
    private nonisolated var sessionPolicy: ReconnectPolicy {
        var policy = reconnectPolicy
        let (radio, wanted) = (self.radio, policy.shouldReconnect)
        policy.shouldReconnect = { reason, attempt in
            switch radio.current {
            case .unauthorized, .unsupported: false
            default: wanted(reason, attempt)
            }
        }
        return policy
    }

    /// Shows one connection's readings and battery until it ends. A lost link is shown and
    /// thrown on as `BluetoothError.disconnected`, which makes `withReconnection` reconnect.
    private nonisolated func serve(_ connection: PeripheralConnection, session: UInt64) async throws {
        await connected(connection.peripheral, session: session)
        let monitor = HeartRateMonitor(connection: connection)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.followBattery(of: monitor, session: session) }
                group.addTask {
                    for try await reading in try await monitor.readings(stallTimeout: nil) { await self.show(reading, session: session) }
                }
                while try await group.next() != nil {}
            }
        } catch let HeartRateMonitorError.disconnected(reason) {
            await lost(reason, session: session)
            throw BluetoothError.disconnected(reason)
        }
    }

    /// The battery level, then its changes when the strap notifies them. A strap without a
    /// battery service, one that refuses the read, or one that sends "not known" (0xFF) leaves
    /// the level unknown.
    private nonisolated func followBattery(of monitor: HeartRateMonitor, session: UInt64) async throws {
        do {
            await show(batteryLevel: try await monitor.batteryLevel(), session: session)
            guard try await monitor.offersBatteryNotifications() else { return }
            for try await level in try await monitor.batteryLevels() { await show(batteryLevel: level, session: session) }
        } catch let error as HeartRateMonitorError {
            if case .disconnected = error { throw error }
        }
    }

    private func connected(_ strap: PeripheralIdentifier, session id: UInt64) async {
        guard session?.id == id else { return }
        state.status = .connected(strap)
        memory.remember(strap)
    }

    private func show(_ reading: HeartRateReading, session id: UInt64) async {
        guard session?.id == id else { return }
        state.reading = reading
        // The session's own subscription holds the measurements now: a restored handle can go
        // without turning off what the system left on (it would, were it let go before).
        if !restored.isEmpty { await releaseRestored() }
    }

    private func show(batteryLevel: Int?, session id: UInt64) {
        guard session?.id == id else { return }
        state.batteryLevel = batteryLevel
    }

    private func lost(_ reason: DisconnectReason, session id: UInt64) {
        guard let session, session.id == id else { return }
        state.reading = nil
        state.status = .reconnecting(session.strap, lost: reason)
    }

    /// The session ended by itself: the reconnect policy gave up, or a failure other than a lost
    /// link (a strap without heart-rate measurements, say).
    private func sessionEnded(_ id: UInt64, _ error: any Error) {
        guard let ended = session, ended.id == id else { return }
        session = nil
        state.reading = nil
        state.batteryLevel = nil
        if case let BluetoothError.disconnected(reason) = error {
            state.status = .disconnected(ended.strap, reason)
        } else {
            state.status = .failed(String(describing: error))
        }
    }

    /// Cancels the session and waits until its connection (pending or not) is gone. When the
    /// user ended it, the strap is forgotten: the next launch does not reconnect to it.
    private func endSession(byUser: Bool = false) async {
        guard let ending = session else { return }
        session = nil
        if byUser { memory.remember(nil) }
        ending.task.cancel()
        await ending.task.value
        await releaseRestored()
        // The person chose to stop: the system must not bring the link back by itself either
        // (its automatic reconnection, or a restored pending connect).
        if byUser { await central.disconnectAll(from: ending.strap) }
        state.reading = nil
        state.batteryLevel = nil
    }

    // MARK: Restoration and the radio

    /// Takes over what the system restored: the connection to the strap in use (else to the
    /// remembered strap, else the first) becomes the session's; other connections are released.
    /// With no such connection, a connect the system was still making to that strap (or the
    /// first, when no strap is in use) becomes the session's: its pending connect joins the
    /// system's. A restored heart-rate scan resumes when no strap is in use.
    private func adopt(_ restoration: Restoration) async {
        let wanted = session?.strap ?? memory.recall()
        let kept = restoration.connections.first { $0.peripheral == wanted } ?? (session == nil ? restoration.connections.first : nil)
        for connection in restoration.connections where connection !== kept { await connection.disconnect() }
        guard let kept else {
            let pending = restoration.pendingConnects.first { $0 == wanted } ?? (session == nil ? restoration.pendingConnects.first : nil)
            if let pending {
                if session?.strap != pending { await startSession(pending) }
                for other in restoration.pendingConnects where other != pending { await central.disconnectAll(from: other) }
                return
            }
            if session == nil, restoration.scanServices?.contains(ServiceSpec.heartRate.uuid) == true { await startScan() }
            return
        }
        switch state.status {
        case .connected(kept.peripheral):
            await kept.disconnect()  // the session already shares this link
        case .connecting(kept.peripheral), .reconnecting(kept.peripheral, _):
            restored.append(kept)  // its connect will share this link
        default:
            await startSession(kept.peripheral, restoredConnection: kept)
        }
    }

    private func releaseRestored() async {
        let handles = restored
        restored = []
        for handle in handles { await handle.disconnect() }
    }

    private func radioChanged(_ state: RadioState) {
        radio.withLock { $0 = state }
        self.state.radio = state
    }

    private nonisolated func publish(_ state: HeartRateAppState) {
        for observer in observers.withLock({ Array($0.all.values) }) { observer.yield(state) }
    }
}
