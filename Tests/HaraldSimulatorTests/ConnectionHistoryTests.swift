import Harald
import HaraldSimulator
import Testing

/// A world that runs for hours connecting again and again keeps a bounded record of its links.
@Suite("The simulated world remembers a bounded number of closed connections")
struct ConnectionHistoryTests {
    @Test func manyConnectionsOneAfterAnotherLeaveAtMostTheHistoryOfClosedOnesAndTheNewest() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        #expect(Simulator.closedConnectionHistory == 64)
        let cycles = Simulator.closedConnectionHistory + 40
        try await simulation.run {
            for _ in 0..<cycles {
                let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
                await connection.disconnect()
            }
        }
        let remembered = simulator.connections
        #expect(remembered.count <= Simulator.closedConnectionHistory + 1)
        #expect(remembered.count >= Simulator.closedConnectionHistory)
        // The newest is kept: connection(to:) still finds the last link to the strap.
        #expect(simulator.connection(to: strap.address)?.link === remembered.last?.link)
    }
}
