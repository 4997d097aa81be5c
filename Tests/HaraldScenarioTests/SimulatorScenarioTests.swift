import Harald
import HaraldSimulator
import Testing

/// The scenario world of the simulator backend: a heart-rate strap and an action camera.
struct SimulatorScenarioWorld: ScenarioWorld {
    let simulator: Simulator
    let central: Central
    let strap = VirtualPeripheral.heartRateStrap().identifier
    let commandDevice = VirtualPeripheral.actionCamera().identifier

    func silenceNextRead() async { misbehave(.neverAnswer) }

    func disconnectOnNextRead() async { misbehave(.disconnect) }

    private func misbehave(_ action: PeerFault.Action) {
        guard let address = strap.address else { return }
        if let connection = simulator.connection(to: address), simulator.radioState == .poweredOn {
            connection.injectOnNext(.readRequest, action)
        } else {
            simulator.injectOnNextConnection(to: address, peer: [PeerFault(answering: .readRequest, action)])
        }
    }

    func pendingOperations(_ peripheral: PeripheralIdentifier) async -> Int {
        guard let address = peripheral.address, let connection = simulator.connection(to: address) else { return 0 }
        return await connection.client.liveContinuations
    }
}

/// Runs `scenario` in a fresh simulated world, in virtual time.
private func run(_ scenario: @escaping @Sendable (SimulatorScenarioWorld) async throws -> Void) throws {
    let simulation = Simulation()
    let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera()])
    let world = SimulatorScenarioWorld(simulator: simulator, central: Central(backend: simulator.backend, clock: simulation.clock))
    try simulation.run(timeLimit: .seconds(600)) { try await scenario(world) }
}

@Suite("Public API scenarios on the simulator backend")
struct SimulatorScenarioTests {
    @Test func scanningFindsTheStrapAndConnectingReachesIt() throws { try run { try await Scenarios.connect($0) } }
    @Test func discoveryFindsEveryServiceAndCharacteristic() throws { try run { try await Scenarios.discover($0) } }
    @Test func typedReadsDecodeTheDevicesValues() throws { try run { try await Scenarios.read($0) } }
    @Test func writesAreAcknowledgedOrRefusedWithTheATTError() throws { try run { try await Scenarios.write($0) } }
    @Test func subscriptionsDeliverDecodedNotifications() throws { try run { try await Scenarios.subscribe($0) } }
    @Test func requestListensBeforeWritingAndReturnsTheResponse() throws { try run { try await Scenarios.requestResponse($0) } }
    @Test func aPeerDisconnectingMidOperationFailsItWithDisconnected() throws { try run { try await Scenarios.disconnectMidOperation($0) } }
    @Test func anUnansweredReadTimesOutAndTheLinkCloses() throws { try run { try await Scenarios.timeout($0) } }
    @Test func cancellingAnOperationLeavesNothingPending() throws { try run { try await Scenarios.cancellation($0) } }
}
