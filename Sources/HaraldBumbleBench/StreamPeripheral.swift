// The peripheral side of the notification-throughput benchmark (scripts/bench-peripheral):
// Harald's HCI peripheral serving the bench peer's stream (scripts/bumble/bench_peer.py): service
// 0xFFB0 with 0xFFB1, which notifies `--notify-count` 20-byte values (little-endian u32 sequence
// number, then 16 bytes of filler) as fast as the link takes them once a central subscribes, and
// 0xFFB2 (read, write). The same centrals (bench_central.py, HaraldBumbleBench) run against
// either peer, so their notification steps compare the two peripherals.
//
// Usage: HaraldBumbleBench --role stream-peripheral --transport T --address ADDR [--notify-count N]
import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend

enum StreamPeripheral {
    static let service = BluetoothUUID(0xFFB0)
    static let stream = BluetoothUUID(0xFFB1)

    static func run(transport: String, address: BluetoothAddress, count: Int) async throws {
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = address
        let definition = PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: "Harald-PS", services: [service]),
            services: [
                ServiceDefinition(
                    uuid: service,
                    characteristics: [
                        CharacteristicDefinition(uuid: stream, properties: [.notify], value: [UInt8](repeating: 0, count: 20)),
                        CharacteristicDefinition(uuid: BluetoothUUID(0xFFB2), properties: [.read, .write, .writeWithoutResponse], value: [0]),
                    ])
            ])
        let served = try await ServedPeripheral.start(definition, on: HCIPeripheralBackend(transport: transport, configuration: configuration))
        FileHandle.standardOutput.write(Data("READY \(address)\n".utf8))
        let filler = [UInt8](repeating: 0xA5, count: 16)
        await withTaskGroup(of: Void.self) { group in
            for await event in served.events() {
                guard case let .subscriptionChanged(central, uuid, true) = event, uuid == stream else { continue }
                group.addTask {
                    let clock = ContinuousClock()
                    let start = clock.now
                    for sequence in 0..<UInt32(count) {
                        let value = withUnsafeBytes(of: sequence.littleEndian, Array.init) + filler
                        guard (try? await served.backend.notify(value, characteristic: stream, service: service, to: central)) == 1 else { return }
                    }
                    let elapsed = clock.now - start
                    FileHandle.standardError.write(Data("BURST central=\(central) count=\(count) handedSeconds=\(elapsed)\n".utf8))
                }
            }
        }
    }
}
