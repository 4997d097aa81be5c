import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSimulator

/// The simulator's strap and a central in virtual time, for the kit's tests.
enum SimulatedStrap {
    static let address = VirtualPeripheral.heartRateStrap().address

    /// Runs `body` with a central in a world of the given devices (the standard strap unless
    /// told otherwise).
    static func run<R: Sendable>(
        devices: [VirtualPeripheral] = [.heartRateStrap()], _ body: @escaping @Sendable (Central, Simulator) async throws -> R
    ) async throws -> R {
        let simulation = Simulation()
        let world = try Simulator(clock: simulation.clock, devices: devices)
        let central = Central(backend: world.backend, clock: simulation.clock, defaultTimeout: .seconds(5))
        return try await simulation.run(timeLimit: .seconds(3600)) { try await body(central, world) }
    }

    /// Runs `body` with a monitor connected to the first device.
    static func withMonitor<R: Sendable>(
        devices: [VirtualPeripheral] = [.heartRateStrap()], _ body: @escaping @Sendable (HeartRateMonitor, Simulator) async throws -> R
    ) async throws -> R {
        try await run(devices: devices) { central, world in
            let monitor = try await HeartRateMonitor.connect(on: central, to: devices[0].identifier)
            let result = try await body(monitor, world)
            await monitor.connection.disconnect()
            return result
        }
    }

    /// A heart-rate sensor with nothing but the Heart Rate Measurement: no control point, no
    /// body sensor location, no battery.
    static func bareSensor() -> VirtualPeripheral {
        VirtualPeripheral(
            address: BluetoothAddress("C0:FF:EE:00:00:0B", kind: .random)!,
            advertisingData: .device(name: "Bare HR", services: [BluetoothUUID(0x180D)])
        ) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: BluetoothUUID(0x180D),
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: HeartRateMeasurement.uuid, properties: [.notify])
                    ])
            ]) { session in
                while await session.sleep(for: .seconds(1)) { await session.notify(HeartRateMeasurement.uuid, [0x00, 64]) }
            }
        }
    }
}

/// Collects values reported from `@Sendable` callbacks.
final class Log<Item: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched with `lock` held.
    private let lock = NSLock()
    private var items: [Item] = []
    var all: [Item] { lock.withLock { items } }
    func add(_ item: Item) { lock.withLock { items.append(item) } }
}

extension HeartRateReadings {
    /// The first `count` readings.
    func prefix(_ count: Int) async throws -> [HeartRateReading] {
        var taken: [HeartRateReading] = []
        for try await reading in self {
            taken.append(reading)
            if taken.count == count { break }
        }
        return taken
    }
}
