import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldScenarioSuite
import HaraldSimulator

/// The scenario peer's state, shared by its GATT handlers (inside the simulation) and the test
/// steering it: the values, the writes without response, and the gate that holds answers.
final class ScenarioPeerState: @unchecked Sendable {
    // @unchecked Sendable: every stored property is only touched with `lock` held; continuations
    // are resumed after the lock is released.
    private let lock = NSLock()
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    private var heldWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var values: [BluetoothUUID: [UInt8]] = [
        ScenarioProfile.status: ScenarioProfile.statusInitial, ScenarioProfile.setting: ScenarioProfile.settingInitial,
    ]
    private var streamWrites: [[UInt8]] = []
    private var writeWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Where a request's answer waits while answers are held.
    func gate() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let wake: [CheckedContinuation<Void, Never>]? = lock.withLock {
                guard holding else { return nil }
                held.append(continuation)
                return Self.take(&heldWaiters, reached: held.count)
            }
            guard let wake else { return continuation.resume() }
            for waiter in wake { waiter.resume() }
        }
    }

    func hold() { lock.withLock { holding = true } }

    func resume() {
        let released = lock.withLock {
            holding = false
            defer { held.removeAll() }
            return held
        }
        for continuation in released { continuation.resume() }
    }

    func waitForHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock {
                if held.count >= count { return true }
                heldWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func value(of uuid: BluetoothUUID) -> [UInt8] { lock.withLock { values[uuid] ?? [] } }
    func store(_ value: [UInt8], for uuid: BluetoothUUID) { lock.withLock { values[uuid] = value } }

    func receiveWithoutResponse(_ value: [UInt8]) {
        let wake = lock.withLock {
            streamWrites.append(value)
            return Self.take(&writeWaiters, reached: streamWrites.count)
        }
        for waiter in wake { waiter.resume() }
    }

    func writes(count: Int) async -> [[UInt8]] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock {
                if streamWrites.count >= count { return true }
                writeWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
        return lock.withLock { streamWrites }
    }

    private static func take(
        _ waiters: inout [(count: Int, continuation: CheckedContinuation<Void, Never>)], reached count: Int
    ) -> [CheckedContinuation<Void, Never>] {
        let ready = waiters.filter { $0.count <= count }.map(\.continuation)
        waiters.removeAll { $0.count <= count }
        return ready
    }
}

extension VirtualPeripheral {
    /// A virtual device serving ``ScenarioProfile`` from `state`.
    static func scenarioPeer(_ state: ScenarioPeerState) -> VirtualPeripheral {
        VirtualPeripheral(
            address: BluetoothAddress("C0:5C:E4:00:00:01", kind: .random)!,
            advertisingData: .device(name: ScenarioProfile.name, services: [ScenarioProfile.service])
        ) { runtime in
            func readable(_ uuid: BluetoothUUID, _ properties: CharacteristicProperties, writable: Bool = false) -> GATTCharacteristicDefinition {
                GATTCharacteristicDefinition(
                    uuid: uuid, properties: properties,
                    onRead: { @Sendable _ in
                        await state.gate()
                        return state.value(of: uuid)
                    },
                    onWrite: writable ? { @Sendable _, value in
                        await state.gate()
                        state.store(value, for: uuid)
                    } : nil)
            }
            let service = GATTServiceDefinition(uuid: ScenarioProfile.service, characteristics: [
                readable(ScenarioProfile.status, [.read, .notify]),
                readable(ScenarioProfile.setting, [.read, .write], writable: true),
                GATTCharacteristicDefinition(uuid: ScenarioProfile.stream, properties: [.writeWithoutResponse], onWrite: { _, value in
                    state.receiveWithoutResponse(value)
                }),
                GATTCharacteristicDefinition(uuid: ScenarioProfile.command, properties: [.write], onWrite: { context, value throws(ATTErrorCode) in
                    await state.gate()
                    if value.first == ScenarioProfile.refusedCommand { throw ATTErrorCode(ScenarioProfile.refusalCode) }
                    await runtime.notify(ScenarioProfile.response, ScenarioProfile.answer(to: value), to: context.connection)
                }),
                GATTCharacteristicDefinition(uuid: ScenarioProfile.response, properties: [.notify]),
            ])
            return PeripheralBehaviour(services: [service])
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

    func disconnectFromPeer() async throws {
        guard let connection = simulator.connection(to: address) else { throw ScenarioFailure("the scenario device is not connected") }
        await connection.link.close(reason: .terminated(by: .peripheral))
    }
}
