import Harald
import HaraldATT
import HaraldCodec
import HaraldSimulator
import Testing

/// Benchmarks ask a device's server what it would answer, to set minimums that do not depend on
/// what the client under measurement read.
@Suite("Asking a virtual peripheral's server for a value")
struct ServerAnswerTests {
    @Test func theServerGivesWhatAReadWouldGetOrTheErrorItWouldAnswerWithoutAnyPDU() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap(protectedSerialNumber: true)
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let (battery, serial, sentBefore, sentAfter, read) = try await simulation.run {
            _ = try await simulator.backend.connect(to: strap.identifier, timeout: .seconds(5))
            let connection = simulator.connection(to: strap.address)!
            let database = await connection.server.database
            let sentBefore = await connection.statistics.pdusSent
            let battery = await connection.serverValue(handle: database.characteristic(BluetoothUUID(0x2A19))!.valueHandle)
            let serial = await connection.serverValue(handle: database.characteristic(BluetoothUUID(0x2A25))!.valueHandle)
            let sentAfter = await connection.statistics.pdusSent
            let read = try await connection.client.read(handle: database.characteristic(BluetoothUUID(0x2A19))!.valueHandle)
            return (battery, serial, sentBefore, sentAfter, read)
        }
        #expect(battery == .success([87]))
        #expect(read == [87])
        #expect(serial == .failure(.insufficientAuthentication))  // no bond yet: pair (Part C §10.3)
        #expect(sentAfter == sentBefore)
    }
}
