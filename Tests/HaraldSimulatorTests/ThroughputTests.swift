import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// Bulk transfers through the whole stack (public API, GATT engines, bearers, link model) reach
/// the link model's limit: packets per event × payload / interval.
@Suite("End-to-end throughput reaches the link model's limit")
struct ThroughputTests {
    private static let sink = Characteristic<[UInt8], WriteBothNotify>(BluetoothUUID(0xFFF2), service: BluetoothUUID(0xFFF0))

    /// A device with one characteristic that accepts writes without response and notifies.
    private static func bulkDevice() -> VirtualPeripheral {
        VirtualPeripheral(address: BluetoothAddress("B0:00:00:00:00:01", kind: .random)!, advertisingData: .device(name: "Bulk")) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: BluetoothUUID(0xFFF0),
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: BluetoothUUID(0xFFF2), properties: [.write, .writeWithoutResponse, .notify])
                    ])
            ])
        }
    }

    @Test(arguments: [LinkParameters.typical, LinkParameters.fast])
    func writesWithoutResponseReach95PercentOfTheModel(parameters: LinkParameters) async throws {
        let simulation = Simulation()
        let device = Self.bulkDevice()
        let simulator = try Simulator(clock: simulation.clock, devices: [device], link: parameters)
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let count = 1000
        let (payload, elapsed) = try await simulation.run(timeLimit: .seconds(3600)) {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let payload = await connection.mtu() - 3
            _ = try await connection.characteristic(BluetoothUUID(0xFFF2), service: BluetoothUUID(0xFFF0))
            let server = simulator.connection(to: device.address)!.server
            let start = simulation.clock.now
            for index in 0..<count {
                try await connection.writeWithoutResponse(Array(repeating: UInt8(truncatingIfNeeded: index), count: payload), to: Self.sink)
            }
            // Until the last write has reached the peripheral (checked every 0.1 ms of virtual time).
            while true {
                let arrived = await server.counters.pdusReceived[.writeCommand] ?? 0
                if arrived >= count { break }
                try await simulation.clock.sleep(for: .microseconds(100))
            }
            return (payload, start.duration(to: simulation.clock.now))
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let achieved = Double(count * payload) / seconds
        #expect(achieved >= 0.95 * parameters.throughputLimit(attPayload: payload))
    }

    @Test(arguments: [LinkParameters.typical, LinkParameters.fast])
    func notificationsReach95PercentOfTheModel(parameters: LinkParameters) async throws {
        let simulation = Simulation()
        let device = Self.bulkDevice()
        let simulator = try Simulator(clock: simulation.clock, devices: [device], link: parameters)
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let count = 1000
        let (payload, elapsed, received) = try await simulation.run(timeLimit: .seconds(3600)) {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let payload = await connection.mtu() - 3
            let values = try await connection.subscribe(Self.sink, buffering: .oldest(count))
            let runtime = simulator.runtime(of: device.address)!
            let start = simulation.clock.now
            async let sent: Void = {
                for index in 0..<count {
                    await runtime.notify(BluetoothUUID(0xFFF2), Array(repeating: UInt8(truncatingIfNeeded: index), count: payload))
                }
            }()
            var received = 0
            for try await _ in values {
                received += 1
                if received == count { break }
            }
            await sent
            return (payload, start.duration(to: simulation.clock.now), received)
        }
        #expect(received == count)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let achieved = Double(count * payload) / seconds
        #expect(achieved >= 0.95 * parameters.throughputLimit(attPayload: payload))
    }
}
