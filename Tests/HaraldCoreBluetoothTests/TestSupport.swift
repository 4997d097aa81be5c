import HaraldCoreBluetooth

/// Yields until `condition` holds: for states reached by other tasks without any timing.
func until(_ condition: () -> Bool) async {
    while !condition() { await Task.yield() }
}

extension CoreBluetoothBackend {
    /// Connects to the fake's profile peripheral and discovers the scenario service.
    func connectToProfile(_ world: FakeWorld) async throws -> BackendScenario.Profile {
        try await BackendScenario.connect(ScenarioHarness(
            backend: self, peer: FakeScenarioPeer(world: world), clock: world.clock, pendingOperations: { nil }))
    }
}
