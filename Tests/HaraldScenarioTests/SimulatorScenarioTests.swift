import Harald
import HaraldATT
import HaraldGoProSimulation
import HaraldScenarioSuite
import HaraldSimulator
import HaraldTestSupport
import Testing

/// Runs `body` in a fresh simulated world holding the scenario device (and a heart-rate strap
/// and an action camera around it), in virtual time.
private func inSimulation(
    _ body: @escaping @Sendable (ScenarioHarness, Simulator, SimulatorScenarioPeer) async throws -> Void
) async throws {
    let simulation = Simulation()
    let state = ScenarioPeerState()
    let device = VirtualPeripheral.scenarioPeer(state)
    let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera(), device])
    let peer = SimulatorScenarioPeer(simulator: simulator, state: state, address: device.address)
    let address = device.address
    let harness = ScenarioHarness(
        central: Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(5)),
        peer: peer, timeout: .seconds(5), shortTimeout: .seconds(1),
        pendingOperations: {
            guard let connection = simulator.connection(to: address) else { return 0 }
            return await connection.client.liveContinuations
        })
    try await simulation.run(timeLimit: .seconds(600)) { try await body(harness, simulator, peer) }
}

@Suite("Public API scenarios on the simulator backend")
struct SimulatorScenarioTests {
    @Test(arguments: Scenario.allCases)
    func scenario(_ scenario: Scenario) async throws {
        try await inSimulation { harness, _, _ in try await scenario.run(harness) }
    }

    /// The peer's half of a Service Changed scenario: its service moves to new handles with its
    /// values, and the central confirmed the indication by the time the peer returns.
    @Test func thePeerMovesItsServiceAndTheCentralConfirmsTheIndication() async throws {
        try await inSimulation { harness, simulator, peer in
            let connection = try await harness.central.connect(to: peer.identifier, services: [ScenarioSpecs.service])
            _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
            let server = try #require(simulator.runtime(of: peer.address)).server
            let before = try #require(await server.database.services.first { $0.uuid == ScenarioProfile.service })
            try await peer.changeServices()
            let after = try #require(await server.database.services.first { $0.uuid == ScenarioProfile.service })
            #expect(after.handles.start > before.handles.end)
            let simulated = try #require(simulator.connection(to: peer.address))
            #expect(await server.counters(for: simulated.serverConnection)?.roundTrips[.handleValueIndication] == 1)
            #expect(try await peer.value(of: ScenarioProfile.setting) == ScenarioProfile.settingInitial)
            await connection.disconnect()
        }
    }

    /// Beyond the shared suite: the ATT transaction timeout, which only a link with an ATT bearer
    /// under the app's control has (30 s, run in virtual time).
    @Test func anUnansweredRequestClosesTheLinkAfterTheATTTransactionTimeout() async throws {
        try await inSimulation { harness, _, peer in
            let connection = try await harness.central.connect(to: peer.identifier, services: [ScenarioSpecs.service])
            _ = try await connection.characteristic(ScenarioProfile.setting, service: ScenarioProfile.service)
            try await peer.holdAnswers()
            await #expect(throws: BluetoothError.timeout(operation: "read of \(ScenarioProfile.setting)", after: .seconds(2))) {
                _ = try await connection.read(ScenarioSpecs.setting, timeout: .seconds(2))
            }
            #expect(await connection.disconnection() == .attTimeout)
            #expect(await harness.pendingOperations() == 0)
            try await peer.resumeAnswering()
        }
    }
}
