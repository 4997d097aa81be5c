import Foundation
import Harald
import HaraldCore
import Testing

/// A peripheral's identifier as the backends spell it: a device address, or CoreBluetooth's UUID.
@Suite("Peripheral identifiers")
struct PeripheralIdentifierTests {
    @Test func anIdentifierMadeFromAUUIDGivesItBack() throws {
        let uuid = try #require(UUID(uuidString: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        let identifier = PeripheralIdentifier(uuid: uuid)
        #expect(identifier.uuid == uuid)
        #expect(identifier.address == nil)
        #expect(identifier.rawValue == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
    }

    @Test func theUUIDFormEqualsTheTextFormCoreBluetoothReports() throws {
        let uuid = try #require(UUID(uuidString: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"))
        #expect(PeripheralIdentifier(uuid: uuid) == PeripheralIdentifier(rawValue: uuid.uuidString))
    }

    @Test func anAddressIdentifierHasNoUUID() throws {
        let address = try #require(BluetoothAddress("C0:00:00:00:00:01", kind: .random))
        #expect(PeripheralIdentifier(address: address).uuid == nil)
    }

    @Test func aTextFormThatIsNoUUIDHasNone() {
        #expect(PeripheralIdentifier(rawValue: "not a uuid").uuid == nil)
    }
}
