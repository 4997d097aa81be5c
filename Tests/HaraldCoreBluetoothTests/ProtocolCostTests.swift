import Harald
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth backend: protocol cost", CoreBluetoothRules())
struct CoreBluetoothProtocolCostTests {
    @Test func aCoreBluetoothConnectionCannotCountATTTrafficSoItsCostIsNil() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: .seconds(10))
        #expect(await connection.protocolCost() == nil)
    }
}
