#if canImport(Observation)
import Harald
import HaraldSimulator
import HeartRateAppModel
import Observation
import Testing

/// The main-actor mirror for SwiftUI. No simulation drives these tests' clock (the main actor
/// runs outside a simulation's executor), so they use only what happens without time passing.
@Suite("Heart-rate app's observable model")
@MainActor
struct HeartRateModelTests {
    // The time limit only guards against a hang (no time passes in the test itself).
    @Test(.timeLimit(.minutes(1)))
    func anActionShowsUpInTheStateOnTheMainActor() async throws {
        let clock = VirtualClock()
        let simulator = try Simulator(clock: clock, devices: [.heartRateStrap()])
        let model = HeartRateModel(central: Central(backend: simulator.backend, clock: clock), memory: InMemoryStrapMemory())
        let running = Task { await model.run() }
        model.scan()
        // Returns once the model shows the scan.
        await waitUntil { model.state.status == .scanning }
        running.cancel()
        await running.value
    }
}

/// Waits until `condition` holds, re-checking it each time a property it reads changes.
@MainActor
private func waitUntil(_ condition: @escaping @MainActor () -> Bool) async {
    while !condition() {
        await withCheckedContinuation { continuation in
            withObservationTracking {
                _ = condition()
            } onChange: {
                continuation.resume()
            }
        }
    }
}
#endif
