import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator

/// Runs `body` in virtual time with a simulated camera connected through the public API.
func withSimulatedCamera<T: Sendable>(
    _ device: VirtualPeripheral = .actionCamera(bootTime: .zero), requestTimeout: Duration = .seconds(5),
    _ body: @escaping @Sendable (GoProCamera, Simulator) async throws -> T
) async throws -> T {
    let simulation = Simulation()
    let simulator = try Simulator(clock: simulation.clock, devices: [device])
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try await simulation.run {
        let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
        let camera = GoProCamera(connection: connection, requestTimeout: requestTimeout)
        let result = try await body(camera, simulator)
        await connection.disconnect()
        return result
    }
}

/// The first `count` elements of an async sequence.
func first<S: AsyncSequence & Sendable>(_ count: Int, of sequence: S) async throws -> [S.Element] where S.Element: Sendable {
    var collected: [S.Element] = []
    guard count > 0 else { return collected }
    for try await element in sequence {
        collected.append(element)
        if collected.count == count { break }
    }
    return collected
}

/// The last packet the client wrote to `characteristic` of the simulated camera.
func lastPacketWritten(to characteristic: GoProCharacteristic, in simulator: Simulator) async -> [UInt8]? {
    guard let runtime = simulator.runtime(of: VirtualPeripheral.actionCamera().address),
        let handle = runtime.valueHandle(characteristic.uuid)
    else { return nil }
    return await runtime.server.value(handle: handle)
}
