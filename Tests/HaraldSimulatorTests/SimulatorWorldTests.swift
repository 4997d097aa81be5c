import Harald
import HaraldGoProSimulation
import HaraldSimulator
import Testing

@Suite("The simulated world: radio, scanning, connecting, many devices")
struct SimulatorWorldTests {
    @Test func scanningHearsEachInRangeDeviceOncePerAdvertisingInterval() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let camera = VirtualPeripheral.actionCamera(rssi: nil)
        let simulator = try Simulator(clock: simulation.clock, devices: [strap, camera])
        let heard = try await simulation.run {
            var heard: [Advertisement] = []
            for try await advertisement in simulator.backend.scan(ScanRequest(duplicates: .reportAll)) {
                heard.append(advertisement)
                if heard.count == 10 { break }
            }
            return heard
        }
        #expect(heard.allSatisfy { $0.peripheral == strap.identifier && $0.rssi == -58 && $0.localName == "Harald HR" })
        // 100 ms interval plus an advertising delay of at most 10 ms between events.
        let gaps = zip(heard.dropFirst(), heard).map { $0.receivedAt - $1.receivedAt }
        #expect(gaps.allSatisfy { $0 >= .milliseconds(100) && $0 <= .milliseconds(110) })
    }

    @Test func connectingToADeviceOutOfRangeTimesOut() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap(rssi: nil)
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let (error, elapsed) = try await simulation.run {
            let start = simulation.clock.now
            do { _ = try await simulator.backend.connect(to: strap.identifier, timeout: .seconds(3)) } catch {
                return (error as? BluetoothError, start.duration(to: simulation.clock.now))
            }
            return (nil, .zero)
        }
        #expect(error == .timeout(operation: "connection to \(strap.identifier)", after: .seconds(3)))
        #expect(elapsed == .seconds(3))
    }

    @Test func connectingToANonConnectableDeviceTimesOut() async throws {
        let simulation = Simulation()
        var description = VirtualPeripheral.heartRateStrap()
        description.isConnectable = false
        let beacon = description
        let simulator = try Simulator(clock: simulation.clock, devices: [beacon])
        let error = try await simulation.run { () -> BluetoothError? in
            do { _ = try await simulator.backend.connect(to: beacon.identifier, timeout: .seconds(2)) } catch { return error as? BluetoothError }
            return nil
        }
        #expect(error == .timeout(operation: "connection to \(beacon.identifier)", after: .seconds(2)))
    }

    @Test func poweringTheRadioOffDropsLinksAndEndsScans() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (reason, scanError, states) = try await simulation.run {
            var stateIterator = central.radioStates().makeAsyncIterator()
            var states = [await stateIterator.next()]
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            await simulator.setRadioState(.poweredOff)
            states.append(await stateIterator.next())
            let reason = await connection.disconnection()
            var scanError: (any Error)?
            do { for try await _ in central.scan() {} } catch { scanError = error }
            return (reason, scanError as? BluetoothError, states)
        }
        #expect(states == [.poweredOn, .poweredOff])
        #expect(reason == .connectionLost)
        #expect(scanError == .radioUnavailable(.poweredOff))
    }

    @Test func aScriptedPowerCycleIsSeenByACentralWaitingForPower() async throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap()])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let poweredOnAt = try await simulation.run {
            await simulator.setRadioState(.poweredOff)
            simulator.setRadioState(.poweredOn, after: .seconds(5))
            try await central.waitUntilPoweredOn(timeout: .seconds(10))
            return simulation.clock.now.sinceStart
        }
        #expect(poweredOnAt == .seconds(5))
    }

    /// `timeout: nil` on a call that waits on the world (here, the person turning Bluetooth on)
    /// waits without limit, not the central's `defaultTimeout`.
    @Test func waitingForPowerWithoutATimeoutOutlastsTheDefaultTimeout() async throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap()])
        let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(30))
        let poweredOnAt = try await simulation.run {
            await simulator.setRadioState(.poweredOff)
            simulator.setRadioState(.poweredOn, after: .seconds(90))
            try await central.waitUntilPoweredOn()
            return simulation.clock.now.sinceStart
        }
        #expect(poweredOnAt == .seconds(90))
    }

    @Test func aDeviceWalkingOutOfRangeLosesItsLink() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let reason = try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            await simulator.setRSSI(nil, of: strap.address)
            return await connection.disconnection()
        }
        #expect(reason == .connectionLost)
    }

    @Test func manySensorsStreamIntoOneCentralWithoutLoss() async throws {
        let simulation = Simulation()
        let sensors = (1...10).map { VirtualPeripheral.streamingSensor(number: $0, interval: .milliseconds(20)) }
        let simulator = try Simulator(clock: simulation.clock, devices: sensors)
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let counts = try await simulation.run {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for sensor in sensors {
                    group.addTask {
                        let connection = try await central.connect(to: sensor.identifier, timeout: .seconds(5))
                        let samples = try await connection.subscribe(VirtualPeripheral.StreamingSensor.samples, buffering: .oldest(1000))
                        var received = 0
                        for try await _ in samples {
                            received += 1
                            if received == 100 { break }
                        }
                        await connection.disconnect()
                        return received
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(counts == Array(repeating: 100, count: 10))
        let stats = simulator.connections
        #expect(stats.count == 10)
    }
}
