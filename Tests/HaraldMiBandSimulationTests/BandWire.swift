import Foundation
import Harald
import HaraldCodec
@testable import HaraldMiBandSimulation
import HaraldSimulator

/// Bytes from spaced hex, as protocols.md writes them.
func bytes(_ hex: String) -> [UInt8] { (try? Hex.decode(hex)) ?? [] }

/// A raw client of a simulated band: it reads, writes and listens with no Mi Band code of its own,
/// so what the tests compare is exactly what the band put on the wire.
struct BandWire: Sendable {
    let connection: PeripheralConnection
    let clock: VirtualClock

    /// Runs `body` in virtual time against `band`.
    static func run<T: Sendable>(_ band: VirtualPeripheral = .fitnessBand(), _ body: @escaping @Sendable (BandWire) async throws -> T) async throws -> T {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [band])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        return try await simulation.run {
            let connection = try await central.connect(to: band.identifier, timeout: .seconds(5))
            let result = try await body(BandWire(connection: connection, clock: simulation.clock))
            await connection.disconnect()
            return result
        }
    }

    func read(_ uuid: BluetoothUUID, in service: BluetoothUUID) async throws -> [UInt8] {
        try await connection.read(Characteristic<[UInt8], Harald.Read>(uuid, service: service))
    }

    func subscribe(_ uuid: BluetoothUUID, in service: BluetoothUUID) async throws -> Subscription<[UInt8]> {
        try await connection.subscribe(Characteristic<[UInt8], Notify>(uuid, service: service), buffering: .oldest(128))
    }

    func write(_ value: [UInt8], to uuid: BluetoothUUID, in service: BluetoothUUID) async throws {
        try await connection.write(value, to: Characteristic<[UInt8], Harald.Write>(uuid, service: service))
    }

    /// Writes `value` and returns the next notification of the same characteristic.
    func exchange(_ value: [UInt8], on uuid: BluetoothUUID, in service: BluetoothUUID) async throws -> [UInt8]? {
        let replies = try await subscribe(uuid, in: service)
        try await write(value, to: uuid, in: service)
        var iterator = replies.makeAsyncIterator()
        let reply = try await iterator.next()
        await connection.unsubscribe(replies)
        return reply
    }
}
