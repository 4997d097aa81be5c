import Harald
import HaraldCodec
@testable import HaraldGoProSimulation
import HaraldSimulator

/// Bytes from spaced hex, as protocols.md writes them.
func bytes(_ hex: String) -> [UInt8] { (try? Hex.decode(hex)) ?? [] }

/// A raw client of a simulated camera: it writes packets and reads notifications, with no Open
/// GoPro code of its own, so what the tests compare is exactly what the camera put on the wire.
struct CameraWire: Sendable {
    let connection: PeripheralConnection
    let responses: [BluetoothUUID: Subscription<[UInt8]>]

    /// Runs `body` in virtual time against `camera`, subscribed to its three response
    /// characteristics.
    static func run<T: Sendable>(
        _ camera: VirtualPeripheral = .actionCamera(bootTime: .zero), _ body: @escaping @Sendable (CameraWire) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [camera])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        return try await simulation.run {
            let connection = try await central.connect(to: camera.identifier, timeout: .seconds(5))
            var responses: [BluetoothUUID: Subscription<[UInt8]>] = [:]
            for uuid in [VirtualPeripheral.OpenGoPro.commandResponse, VirtualPeripheral.OpenGoPro.settingsResponse, VirtualPeripheral.OpenGoPro.queryResponse] {
                responses[uuid] = try await connection.subscribe(
                    Characteristic<[UInt8], Notify>(uuid, service: VirtualPeripheral.OpenGoPro.service), buffering: .oldest(64))
            }
            let result = try await body(CameraWire(connection: connection, responses: responses))
            await connection.disconnect()
            return result
        }
    }

    /// Writes each packet to the request characteristic `channel`.
    func write(_ packets: [UInt8]..., to channel: BluetoothUUID) async throws {
        for packet in packets {
            try await connection.write(packet, to: Characteristic<[UInt8], Harald.Write>(channel, service: VirtualPeripheral.OpenGoPro.service))
        }
    }

    /// The next `count` notifications of the response characteristic `response`.
    func packets(_ count: Int, from response: BluetoothUUID) async throws -> [[UInt8]] {
        guard let subscription = responses[response] else { return [] }
        var iterator = subscription.makeAsyncIterator()
        var packets: [[UInt8]] = []
        while packets.count < count, let packet = try await iterator.next() { packets.append(packet) }
        return packets
    }

    /// Writes one packet to `channel` and returns the next notification of `response`.
    func exchange(_ packet: [UInt8], on channel: BluetoothUUID, answer response: BluetoothUUID) async throws -> [UInt8]? {
        try await write(packet, to: channel)
        return try await packets(1, from: response).first
    }
}
