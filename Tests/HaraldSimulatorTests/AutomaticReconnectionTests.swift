import Harald
import HaraldSimulator
import Testing

/// The simulator's model of iOS 17's automatic reconnection (`enableAutoReconnect`), seen
/// through `Central`: the same rules as on CoreBluetooth, in virtual time.
@Suite("The simulated world: the system's automatic reconnection")
struct AutomaticReconnectionTests {
    let autoReconnect = ConnectionOptions(enableAutoReconnect: true)

    /// Link states of `peripheral`, collected as they come.
    final class States: Sendable {
        let seen = Locked<[PeripheralLinkState]>([])
        var all: [PeripheralLinkState] { seen.value }
    }

    func watch(_ central: Central, _ peripheral: PeripheralIdentifier, into states: States, starter: TaskStarter) {
        _ = starter.start { for await state in central.linkStates(of: peripheral) { states.seen.withLock { $0.append(state) } } }
    }

    @Test func aLostLinkComesBackByItselfWhenTheDeviceIsBackInRange() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let states = States()
        let (seen, handles) = try await simulation.run {
            self.watch(central, strap.identifier, into: states, starter: simulation.clock.taskStarter)
            var connection: PeripheralConnection? = try await central.connect(to: strap.identifier, options: autoReconnect, timeout: .seconds(5))
            await simulator.setRSSI(nil, of: strap.address)
            _ = await connection?.disconnection()
            connection = nil  // letting go of the lost handle leaves the system's attempt alone
            try await simulation.clock.sleep(for: .seconds(60))
            await simulator.setRSSI(RSSI(dBm: -60), of: strap.address)
            try await simulation.clock.sleep(for: .seconds(5))
            let again = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            return (states.all, again.ownerCount)
        }
        #expect(seen == [.disconnected, .connecting, .connected, .reconnecting, .connected])
        #expect(handles == 1)
    }

    @Test func aLinkTheAppClosedIsNotReconnected() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let open = try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, options: autoReconnect, timeout: .seconds(5))
            await connection.disconnect()
            try await simulation.clock.sleep(for: .seconds(60))
            return simulator.connections.filter(\.link.isOpen).count
        }
        #expect(open == 0)
    }

    @Test func disconnectAllStopsTheSystemsReconnection() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (state, open) = try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, options: autoReconnect, timeout: .seconds(5))
            await simulator.setRSSI(nil, of: strap.address)
            _ = await connection.disconnection()
            try await simulation.clock.sleep(for: .seconds(1))
            await central.disconnectAll(from: strap.identifier)
            await simulator.setRSSI(RSSI(dBm: -60), of: strap.address)
            try await simulation.clock.sleep(for: .seconds(60))
            return (central.linkStateNow(of: strap.identifier), simulator.connections.filter(\.link.isOpen).count)
        }
        #expect(state == .disconnected)
        #expect(open == 0)
    }
}

/// A wrapper that overrides nothing is the connection it wraps, call for call.
@Suite("ForwardingConnectionBackend")
struct ForwardingConnectionBackendTests {
    struct Plain: ForwardingConnectionBackend {
        let forwarded: any ConnectionBackend
    }

    @Test func aWrapperThatOverridesNothingBehavesAsTheConnectionItWraps() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let (services, sameDomain, peripheral, level) = try await simulation.run {
            let inner = try await simulator.backend.connect(to: strap.identifier, timeout: .seconds(5))
            let wrapped = Plain(forwarded: inner)
            let services = try await wrapped.discoverServices(nil, timeout: .seconds(5))
            let battery = try #require(services.first { $0.uuid == ServiceSpec.battery.uuid })
            let characteristics = try await wrapped.discoverCharacteristics(nil, of: battery, timeout: .seconds(5))
            let level = try await wrapped.read(try #require(characteristics.first), timeout: .seconds(5))
            await wrapped.disconnect()
            return (services.count, wrapped.serialDomain === inner.serialDomain, wrapped.peripheral, level)
        }
        #expect(services >= 2)
        #expect(sameDomain)
        #expect(peripheral == strap.identifier)
        #expect(level.count == 1)
    }
}
