import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldScenarioSuite
import HaraldSimulator
import HaraldTestSupport

extension VirtualPeripheral {
    /// A virtual device serving ``ScenarioProfile`` from `state` (the service shared with the other
    /// backends' runs, in HaraldTestSupport).
    static func scenarioPeer(_ state: ScenarioPeerState) -> VirtualPeripheral {
        var device = VirtualPeripheral(
            address: BluetoothAddress("C0:5C:E4:00:00:01", kind: .random)!,
            advertisingData: .device(name: ScenarioProfile.name, services: [ScenarioProfile.service])
        ) { runtime in
            PeripheralBehaviour(services: scenarioServices(state, on: runtime))
        }
        device.channels = [VirtualChannelService(psm: L2CAPPSM(ScenarioProfile.echoPSM))]
        return device
    }

    /// The scenario service, answering commands through `runtime` (which finds the response
    /// characteristic wherever the service is now).
    static func scenarioServices(_ state: ScenarioPeerState, on runtime: PeripheralRuntime) -> [GATTServiceDefinition] {
        ScenarioPeerServices.definitions(state: state) { answer, connection in
            await runtime.notify(ScenarioProfile.response, answer, to: connection)
        }
    }
}

/// ``ScenarioPeer`` over the virtual scenario device.
struct SimulatorScenarioPeer: ScenarioPeer {
    let simulator: Simulator
    let state: ScenarioPeerState
    let address: BluetoothAddress

    var identifier: PeripheralIdentifier { PeripheralIdentifier(address: address) }
    func holdAnswers() async throws { state.hold() }
    func resumeAnswering() async throws { state.resume() }
    func waitForHeldRequests(_ count: Int) async throws { await state.waitForHeld(count) }

    func notify(_ value: [UInt8], on uuid: BluetoothUUID) async throws {
        guard let runtime = simulator.runtime(of: address) else { throw ScenarioFailure("the scenario device is not in the simulator") }
        await runtime.notify(uuid, value)
    }

    func value(of uuid: BluetoothUUID) async throws -> [UInt8] { state.value(of: uuid) }

    func writesWithoutResponse(to uuid: BluetoothUUID, count: Int) async throws -> [[UInt8]] {
        guard uuid == ScenarioProfile.stream else { return [] }
        return await state.writes(count: count)
    }

    func notificationsEnabled(on uuid: BluetoothUUID) async throws -> Bool {
        guard let connection = simulator.connection(to: address) else { return false }
        guard let handle = await connection.server.database.characteristic(uuid)?.valueHandle else {
            throw ScenarioFailure("the scenario device has no \(uuid)")
        }
        return await !connection.server.clientConfiguration(valueHandle: handle, connection: connection.serverConnection).isEmpty
    }

    func disconnectFromPeer() async throws {
        guard let connection = simulator.connection(to: address) else { throw ScenarioFailure("the scenario device is not connected") }
        await connection.link.close(reason: .terminated(by: .peripheral))
    }

    func changeServices() async throws {
        guard let runtime = simulator.runtime(of: address) else { throw ScenarioFailure("the scenario device is not in the simulator") }
        try await runtime.changeServices(
            removing: [ScenarioProfile.service], adding: VirtualPeripheral.scenarioServices(state, on: runtime))
    }
}
