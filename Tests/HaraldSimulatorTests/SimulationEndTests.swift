import Foundation
import Harald
import HaraldSMP
import HaraldCore
import HaraldSimulator
import Testing

/// What happens to the simulated world when its ``Simulation`` goes away: nothing will run its
/// jobs or move its time again, so whatever still waits there is ended rather than leaked.
@Suite("Ending a simulation: what still waits in it is ended, not leaked")
struct SimulationEndTests {
    @Test func aTaskStillSleepingWhenTheSimulationEndsIsCancelled() async throws {
        let outcome = Locked<String?>(nil)
        do {
            let simulation = Simulation()
            let clock = simulation.clock
            try await simulation.run {
                clock.taskStarter.start {
                    do {
                        try await clock.sleep(for: .seconds(3600))
                        outcome.withLock { $0 = "woke" }
                    } catch { outcome.withLock { $0 = "\(type(of: error))" } }
                }
                try await clock.sleep(for: .seconds(1))
            }
            #expect(outcome.value == nil)
        }
        #expect(outcome.value == "CancellationError")
    }

    @Test func aTaskThatEndedBeforeTheEndRanOnceAndIsLeftAlone() async throws {
        let runs = Locked(0)
        do {
            let simulation = Simulation()
            try await simulation.run {
                await simulation.taskStarter.start { runs.withLock { $0 += 1 } }.value
            }
        }
        #expect(runs.value == 1)
    }

    @Test func aDeviceTickStillPendingIsDroppedUnrunAndFreesWhatItHolds() async throws {
        weak var weakWitness: Witness?
        let ticks = TickCount()
        do {
            let simulation = Simulation()
            let witness = Witness()
            weakWitness = witness
            let device = DeviceTimerTests.ticker(address: "C0:00:00:00:00:7B") {
                withExtendedLifetime(witness) { ticks.add() }
                return true
            }
            let simulator = try Simulator(clock: simulation.clock, devices: [device])
            try await simulation.run {
                let connection = try await simulator.backend.connect(to: device.identifier, timeout: .seconds(5))
                try await simulation.clock.sleep(for: .milliseconds(55))
                _ = connection  // left open
            }
            #expect(ticks.value >= 4)
        }
        let atEnd = ticks.value
        #expect(weakWitness == nil)
        #expect(ticks.value == atEnd)
    }

    @Test func aWorldLeftWithAnOpenConnectionIsFreedWithItsSimulation() async throws {
        weak var weakClock: VirtualClock?
        weak var weakSimulator: Simulator?
        weak var weakConnection: PeripheralConnection?
        do {
            let simulation = Simulation()
            weakClock = simulation.clock
            let strap = VirtualPeripheral.heartRateStrap()
            let simulator = try Simulator(clock: simulation.clock, devices: [strap])
            weakSimulator = simulator
            let central = Central(backend: simulator.backend, clock: simulation.clock)
            let connection = try await simulation.run {
                let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
                _ = try await connection.read(.batteryLevel)
                return connection
            }
            weakConnection = connection
        }
        // The handle's release starts a task that closes the link; with the simulation over, it
        // runs on a global thread, so the last references may go a moment later.
        await Self.waitUntil { weakConnection == nil && weakSimulator == nil && weakClock == nil }
        #expect(weakConnection == nil)
        #expect(weakSimulator == nil)
        #expect(weakClock == nil)
    }

    @Test func aWorldWhereACentralPairedAndBondedIsFreedWithItsSimulation() async throws {
        weak var weakClock: VirtualClock?
        weak var weakSimulator: Simulator?
        let bonds = InMemoryBondStore()
        do {
            let simulation = Simulation()
            weakClock = simulation.clock
            let lock = BondRulesTests.lock(BondRulesTests.displaying)
            let simulator = try Simulator(
                clock: simulation.clock, devices: [lock],
                security: SecurityConfiguration(
                    bonds: bonds, pairing: BondRulesTests.typing, agent: AutomaticPairingAgent(passkey: BondRulesTests.passkey)))
            weakSimulator = simulator
            let central = Central(backend: simulator.backend, clock: simulation.clock)
            try await simulation.run {
                // Reading the encrypted value pairs (MITM, passkey) and bonds.
                let connection = try await central.connect(to: lock.identifier, timeout: .seconds(5))
                let characteristic = try await connection.characteristic(BondRulesTests.encrypted, service: BondRulesTests.service)
                _ = try await connection.readRaw(characteristic)
                await connection.disconnect()
            }
        }
        await #expect(try Self.bondCount(bonds) == 1)
        await Self.waitUntil { weakSimulator == nil && weakClock == nil }
        // The device's pairing side and the central's link security each held the world.
        #expect(weakSimulator == nil)
        #expect(weakClock == nil)
    }

    @Test func aDeviceWhoseHandlersHoldItsRuntimeIsFreedWithItsWorld() async throws {
        weak var weakClock: VirtualClock?
        weak var weakRuntime: PeripheralRuntime?
        do {
            let simulation = Simulation()
            weakClock = simulation.clock
            // A write handler that answers through the runtime, as device definitions commonly do.
            let echo = VirtualPeripheral(address: BluetoothAddress("C0:00:00:00:00:7C", kind: .random)!, advertisingData: .device(name: "Echo")) { runtime in
                PeripheralBehaviour(
                    definition: PeripheralDefinition(
                        advertisement: PeripheralAdvertisement(name: "Echo"),
                        services: [
                            ServiceDefinition(
                                uuid: BluetoothUUID(0xFFF0),
                                characteristics: [
                                    CharacteristicDefinition(
                                        uuid: BluetoothUUID(0xFFF1), properties: [.write, .notify],
                                        onWrite: { _, value in _ = await runtime.notify(BluetoothUUID(0xFFF1), value) })
                                ])
                        ]))
            }
            let simulator = try Simulator(clock: simulation.clock, devices: [echo])
            weakRuntime = simulator.runtime(of: echo.address)
            let central = Central(backend: simulator.backend, clock: simulation.clock)
            try await simulation.run {
                let connection = try await central.connect(to: echo.identifier, timeout: .seconds(5))
                await connection.disconnect()
            }
        }
        await Self.waitUntil { weakRuntime == nil && weakClock == nil }
        #expect(weakRuntime == nil)
        #expect(weakClock == nil)
    }

    /// A clock no simulation drives (moved by hand, or not at all) never ends, so nothing on it
    /// may hold the world: released, a simulator and its devices go, even while the clock stays.
    @Test func aWorldOnAClockNoSimulationDrivesIsFreedWhenReleased() async throws {
        let clock = VirtualClock()
        weak var weakRuntime: PeripheralRuntime?
        do {
            let strap = VirtualPeripheral.heartRateStrap()
            let simulator = try Simulator(clock: clock, devices: [strap])
            weakRuntime = simulator.runtime(of: strap.address)
            #expect(weakRuntime != nil)
        }
        await Self.waitUntil { weakRuntime == nil }
        #expect(weakRuntime == nil)
        withExtendedLifetime(clock) {}
    }

    /// How many bonds `bonds` holds.
    static func bondCount(_ bonds: InMemoryBondStore) async throws -> Int {
        try await Simulation().run { await bonds.allBonds().count }
    }
}

extension SimulationEndTests {
    /// Waits, in real time, until `condition` holds or 10 seconds have passed, giving its thread
    /// back between looks (what it waits for may need a thread of the cooperative pool).
    static func waitUntil(_ condition: () -> Bool) async {
        let limit = ContinuousClock.now.advanced(by: .seconds(10))
        while !condition() && ContinuousClock.now < limit { try? await Task.sleep(for: .milliseconds(1)) }
    }
}

/// An object whose deinit a test can see through a weak reference.
final class Witness: Sendable {}
