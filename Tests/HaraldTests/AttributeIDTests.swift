import Harald
import HaraldCore
import Testing

@Suite("Attribute identities")
struct AttributeIDTests {
    @Test func anIdentityFromAHandleKeepsTheHandle() {
        let id = AttributeID(handle: 0x002A)
        #expect(id.handle == 0x002A)
        #expect(id.description == "handle 0x002A")
        #expect(id == AttributeID(handle: 0x002A))
    }

    @Test func aNumberedIdentityHasNoHandleAndNeverEqualsAHandleOne() {
        let id = AttributeID(serial: 42)
        #expect(id.handle == nil)
        #expect(id.description == "attribute #42")
        #expect(id != AttributeID(handle: 42))
    }

    @Test func anATTErrorNamesItsAttributeWhenThereIsOne() {
        #expect(
            BluetoothError.attribute(.readNotPermitted, on: AttributeID(handle: 0x0012)).description
                == "ATT error Read Not Permitted (0x02) on handle 0x0012")
        #expect(BluetoothError.attribute(.readNotPermitted, on: nil).description == "ATT error Read Not Permitted (0x02)")
    }
}
