import Harald
import HaraldCore
import HaraldProfiles
import HaraldSimulator
import Testing

@Suite("Unsubscribing turns notifications off with the last subscription")
struct UnsubscribeTests {
    @Test func notificationsStayOnWhileAnySubscriptionRemains() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let states = try await simulation.run(timeLimit: .seconds(60)) { () -> [ClientCharacteristicConfiguration] in
            let connection = try await central.connect(to: strap.identifier)
            let first = try await connection.subscribe(.heartRateMeasurement)
            let second = try await connection.subscribe(.heartRateMeasurement)
            guard let link = simulator.connection(to: strap.address),
                let handle = await link.server.database.characteristics.first(where: { $0.characteristic.uuid == HeartRateMeasurement.uuid })?
                    .characteristic.valueHandle
            else { throw BluetoothError.notFound("strap connection") }
            func state() async -> ClientCharacteristicConfiguration {
                await link.server.clientConfiguration(valueHandle: handle, connection: link.serverConnection)
            }
            var seen = [await state()]
            await connection.unsubscribe(first)
            seen.append(await state())
            await connection.unsubscribe(second)
            seen.append(await state())
            await connection.disconnect()
            return seen
        }
        #expect(states == [.notifications, .notifications, []])
    }

    @Test func aSubscribeWhoseCCCDAnswerComesTooLateLeavesNotificationsOff() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (error, state, failures) = try await simulation.run(timeLimit: .seconds(60)) {
            () -> (BluetoothError?, ClientCharacteristicConfiguration, Int) in
            let connection = try await central.connect(to: strap.identifier)
            _ = try await connection.characteristic(HeartRateMeasurement.uuid, service: ServiceSpec.heartRate.uuid)
            guard let link = simulator.connection(to: strap.address),
                let handle = await link.server.database.characteristics.first(where: { $0.characteristic.uuid == HeartRateMeasurement.uuid })?
                    .characteristic.valueHandle
            else { throw BluetoothError.notFound("strap connection") }
            // The strap applies the CCCD write at once but answers it 2 s later, after the
            // subscribe's 1 s deadline.
            link.injectOnNext(.writeRequest, .answerAfter(.seconds(2)))
            var failure: BluetoothError?
            do { _ = try await connection.subscribe(.heartRateMeasurement, timeout: .seconds(1)) } catch { failure = error as? BluetoothError }
            await connection.settle()
            let state = await link.server.clientConfiguration(valueHandle: handle, connection: link.serverConnection)
            let failures = connection.cleanUpFailures
            await connection.disconnect()
            return (failure, state, failures)
        }
        let timedOut: Bool
        if case .timeout = error { timedOut = true } else { timedOut = false }
        #expect(timedOut, "the subscribe ends at its deadline: \(String(describing: error))")
        #expect(state == [], "nobody owns the notifications the late write turned on: they are off again")
        #expect(failures == 0)
    }
}
