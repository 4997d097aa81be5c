import Harald
import HaraldSimulator
import Testing

/// A model with state of its own, as an app's screen model is (on the main actor, or an actor).
private actor HeartRateModel {
    private(set) var rates: [Int] = []

    /// Follows the strap's heart rate until it has `count` values, keeping them in the model's
    /// own state from inside the subscription's body.
    func follow(_ connection: PeripheralConnection, count: Int) async throws {
        try await connection.withSubscription(to: .heartRateMeasurement) { measurements in
            for try await measurement in measurements {
                rates.append(Int(measurement.heartRate))
                if rates.count == count { break }
            }
        }
    }
}

@Suite("withSubscription's body runs where its caller runs")
struct WithSubscriptionIsolationTests {
    @Test func anActorModelKeepsEachValueInItsOwnStateInsideTheBody() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(5))
        let rates = try await simulation.run(timeLimit: .seconds(600)) {
            let connection = try await central.connect(to: strap.identifier)
            let model = HeartRateModel()
            try await model.follow(connection, count: 3)
            await connection.disconnect()
            return await model.rates
        }
        #expect(rates.count == 3)
        #expect(rates.allSatisfy { (30...240).contains($0) })
    }
}
