import Harald
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldScenarioSuite
import HaraldTestSupport
import Testing

/// The transport to the controller breaks under the public API: what was waiting fails with an
/// error, and the GATT client is left holding nothing.
@Suite("The HCI backend when the transport to its controller breaks")
struct TransportLossTests {
    @Test func aReadWaitingForItsAnswerFailsAsALostLink() async throws {
        let peripheral = try ScenarioPeripheral()
        let controller = VirtualController(peers: [peripheral.virtualPeer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock())
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: peripheral.address))
            _ = try await connection.read(ScenarioSpecs.setting)
            peripheral.state.hold()
            let reading = Task { try await connection.read(ScenarioSpecs.setting) }
            await peripheral.state.waitForHeld(1)
            controller.fail(.closed)
            await #expect(throws: BluetoothError.disconnected(.connectionLost)) { _ = try await reading.value }
            #expect(await connection.disconnection() == .connectionLost)
        }
        #expect(await backend.host.closeReason == .transport(.closed))
        await backend.close()
        // The peer's server is still inside the held read: let it finish, as a peer would.
        peripheral.state.resume()
    }

    @Test func aScanEndsWithAnErrorWhenTheTransportBreaks() async throws {
        let peripheral = try ScenarioPeripheral()
        let controller = VirtualController(peers: [peripheral.virtualPeer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let reports = backend.scan(ScanRequest(duplicates: .reportAll))
            var iterator = reports.makeAsyncIterator()
            _ = try await iterator.next()  // the peripheral is heard: the scan runs
            controller.fail(.closed)
            await #expect(throws: BluetoothError.self) {
                while try await iterator.next() != nil {}
            }
        }
        await backend.close()
    }
}
