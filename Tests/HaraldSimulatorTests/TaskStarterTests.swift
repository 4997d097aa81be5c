import Harald
import HaraldATT
import HaraldCore
import HaraldSimulator
import Testing

@Suite("Task starters: what runs on a simulation's clock starts its tasks in the simulation")
struct TaskStarterTests {
    @Test func aClockNoSimulationDrivesStartsPlainTasks() {
        #expect(VirtualClock().taskStarter == .default)
        #expect(TaskStarter.default.isDefault)
    }

    @Test func aSimulationBindsItsClockToItsExecutor() {
        let simulation = Simulation()
        #expect(simulation.clock.taskStarter == simulation.taskStarter)
        #expect(!simulation.taskStarter.isDefault)
        #expect(simulation.taskStarter != Simulation().taskStarter)
    }

    @Test func bearersEnginesAndConnectionsOnTheSimulatorCarryTheSimulationsStarter() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: clock, devices: [strap])
        let (bearer, client, connection) = try await simulation.run {
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let bearer = SimulatedATTBearer(link: link, side: .central)
            let client = GATTClient(bearer: bearer, clock: clock)
            let connection = try await Central(backend: simulator.backend, clock: clock).connect(to: strap.identifier)
            let starters = (bearer.taskStarter, client.taskStarter, connection.taskStarter)
            await connection.disconnect()
            await client.disconnect()
            return starters
        }
        #expect(bearer == simulation.taskStarter)
        #expect(client == simulation.taskStarter)
        #expect(connection == simulation.taskStarter)
    }

    @Test func anEngineGivenAStarterUsesItInsteadOfItsBearers() {
        let (central, _) = ATTMemoryBearer.pair()
        #expect(GATTClient(bearer: central).taskStarter == .default)
        let simulation = Simulation()
        #expect(GATTClient(bearer: central, taskStarter: simulation.taskStarter).taskStarter == simulation.taskStarter)
    }

    @Test func aTaskFromTheSimulationsStarterRunsInVirtualTime() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let woke = try await simulation.run {
            // An hour of sleep in a started task: it finishes at once in real time, at t+1h.
            await simulation.taskStarter.start { () -> VirtualInstant in
                try? await clock.sleep(for: .seconds(3600))
                return clock.now
            }.value
        }
        #expect(woke == VirtualInstant(sinceStart: .seconds(3600)))
    }
}
