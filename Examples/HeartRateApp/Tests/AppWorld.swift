import Harald
import HaraldCodec
import HaraldSimulator
import HeartRateAppModel

/// A simulated world with one heart-rate strap, and the app's core running on it.
struct AppWorld: Sendable {
    let simulator: Simulator
    let strap: VirtualPeripheral
    let clock: VirtualClock
    let memory: InMemoryStrapMemory
    let core: HeartRateCore
    /// The connection the system restored (``WorldSetUp/restoresConnection``), counting the CCCD
    /// writes made through it.
    var restoredConnection: CCCDRecordingConnection? = nil

    /// Waits (in virtual time) until the app shows a state that satisfies `condition`.
    @discardableResult
    func state(where condition: @escaping @Sendable (HeartRateAppState) -> Bool) async throws -> HeartRateAppState {
        for await state in await core.states() where condition(state) { return state }
        throw AppWorldError.runEnded
    }

    /// Waits until the app shows a heart rate.
    @discardableResult
    func heartRateShown() async throws -> HeartRateAppState {
        try await state { $0.beatsPerMinute != nil }
    }

    /// Connects the app to the strap and waits for its first reading.
    func connectAndWaitForAReading() async throws {
        core.connect(to: strap.identifier)
        try await heartRateShown()
    }

    /// Links to the strap that are up.
    var openLinks: Int { simulator.connections.filter(\.link.isOpen).count }

    /// Takes the strap out of range: its link is lost.
    func takeStrapAway() async { await simulator.setRSSI(nil, of: strap.address) }

    /// Brings the strap back in range.
    func bringStrapBack() async { await simulator.setRSSI(RSSI(dBm: -60), of: strap.address) }

    func sleep(for duration: Duration) async throws { try await clock.sleep(for: duration) }
}

enum AppWorldError: Error {
    case runEnded
}

/// How a test's world starts.
struct WorldSetUp: Sendable {
    /// The app remembers the strap from an earlier launch.
    var remembersStrap = false
    /// The strap is in range at launch.
    var strapInRange = true
    /// The system restored a connection to the strap (CoreBluetooth state restoration).
    var restoresConnection = false
    /// The system restored a connect to the strap it was still making.
    var restoresPendingConnect = false
    /// The restored connection's heart-rate measurements were notifying.
    var restoresNotifying = false
}

/// Runs `body` in virtual time with the app's core running; the core's run is cancelled (and
/// finishes) when `body` returns.
func inWorld<T: Sendable>(
    _ setUp: WorldSetUp = WorldSetUp(), policy: ReconnectPolicy = HeartRateCore.defaultReconnectPolicy,
    timeLimit: Duration = .seconds(4 * 3600), _ body: @escaping @Sendable (AppWorld) async throws -> T
) async throws -> T {
    try await simulate(setUp, policy: policy, timeLimit: timeLimit) { world in
        try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask { await world.core.run() }
            defer { group.cancelAll() }
            return try await body(world)
        }
    }
}

/// Builds the world inside a simulation and runs `body` on it, without running the core.
func simulate<T: Sendable>(
    _ setUp: WorldSetUp = WorldSetUp(), policy: ReconnectPolicy = HeartRateCore.defaultReconnectPolicy,
    timeLimit: Duration = .seconds(4 * 3600), _ body: @escaping @Sendable (AppWorld) async throws -> T
) async throws -> T {
    let simulation = Simulation()
    let strap = VirtualPeripheral.heartRateStrap()
    let simulator = try Simulator(clock: simulation.clock, devices: [strap])
    let memory = InMemoryStrapMemory(setUp.remembersStrap ? strap.identifier : nil)
    return try await simulation.run(timeLimit: timeLimit) {
        if !setUp.strapInRange { await simulator.setRSSI(nil, of: strap.address) }
        var backend = simulator.backend
        var recorder: CCCDRecordingConnection?
        if setUp.restoresConnection {
            let connection = CCCDRecordingConnection(forwarded: try await backend.connect(to: strap.identifier, timeout: .seconds(5)))
            recorder = connection
            var notifying: [PeripheralIdentifier: [DiscoveredCharacteristic]] = [:]
            if setUp.restoresNotifying {
                // As the system hands it back: the measurement's CCCD written before the relaunch.
                let service = try await connection.discoverServices([ServiceSpec.heartRate.uuid], timeout: .seconds(5))[0]
                let characteristics = try await connection.discoverCharacteristics(nil, of: service, timeout: .seconds(5))
                let measurementUUID = BluetoothUUID(0x2A37)  // Heart Rate Measurement
                guard let measurement = characteristics.first(where: { $0.uuid == measurementUUID }) else { throw AppWorldError.runEnded }
                try await connection.forwarded.setNotifications(true, for: measurement, timeout: .seconds(5))
                notifying[strap.identifier] = [measurement]
            }
            backend = RestoringBackend(
                base: backend, restoration: BackendRestoration(connections: [connection], notifying: notifying, scanServices: nil))
        } else if setUp.restoresPendingConnect {
            backend = RestoringBackend(
                base: backend, restoration: BackendRestoration(connections: [], pendingConnections: [strap.identifier], scanServices: nil))
        }
        let central = Central(backend: backend, clock: simulation.clock, defaultTimeout: .seconds(5))
        let core = HeartRateCore(central: central, memory: memory, reconnectPolicy: policy)
        return try await body(
            AppWorld(simulator: simulator, strap: strap, clock: simulation.clock, memory: memory, core: core, restoredConnection: recorder))
    }
}

/// A backend that hands back one restoration, as CoreBluetooth does when the system relaunches
/// an app, and otherwise is the simulator's.
struct RestoringBackend: CentralBackend {
    let base: any CentralBackend
    let restoration: BackendRestoration

    func radioStates() -> AsyncStream<RadioState> { base.radioStates() }
    func scan(_ request: ScanRequest) -> ScanReports { base.scan(request) }
    func connect(to peripheral: PeripheralIdentifier, options: ConnectionOptions, timeout: Duration?) async throws(BluetoothError)
        -> any ConnectionBackend
    {
        try await base.connect(to: peripheral, options: options, timeout: timeout)
    }
    func restorations() -> AsyncStream<BackendRestoration> {
        let restoration = self.restoration
        return AsyncStream { continuation in
            continuation.yield(restoration)
            continuation.finish()
        }
    }
    var taskStarter: TaskStarter { base.taskStarter }
}
