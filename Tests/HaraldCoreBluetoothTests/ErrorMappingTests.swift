import Foundation
import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth error mapping")
struct ErrorMappingTests {
    @Test(arguments: [0x01, 0x05, 0x0F, 0x80, 0xFE])
    func attErrorCodesPassThroughAsATTStatus(code: Int) {
        #expect(
            CoreBluetoothErrorMapping.bluetoothError(attError(code), attribute: AttributeID(serial: 21), keys: fakeKeys)
                == .attribute(ATTErrorCode(rawValue: UInt8(code)), on: AttributeID(serial: 21)))
    }

    @Test func anATTErrorOnNoSingleAttributeNamesNone() {
        let error = CoreBluetoothErrorMapping.bluetoothError(attError(0x0E), attribute: nil, keys: fakeKeys)
        #expect(error == .attribute(.unlikelyError, on: nil))
        #expect(error.description == "ATT error Unlikely Error (0x0E)")
        #expect(BluetoothError.attribute(.unlikelyError, on: AttributeID(serial: 7)).description == "ATT error Unlikely Error (0x0E) on attribute #7")
    }

    @Test func disconnectReasonsFollowTheCBErrorCode() {
        let reason = { (error: NSError?) in CoreBluetoothErrorMapping.disconnectReason(error, keys: fakeKeys) }
        #expect(reason(nil) == .localRequest)
        #expect(reason(cbError(7)) == .remoteRequest)
        #expect(reason(cbError(6)) == .connectionLost)
        #expect(reason(cbError(5)) == .localRequest)
        #expect(reason(cbError(14)) == .peerRemovedPairingInformation)
        #expect(reason(cbError(15)) == .other("CBError 15 (encryption timed out)"))
    }

    @Test func operationErrorsFromALostLinkMeanDisconnected() {
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(3), attribute: AttributeID(serial: 1), keys: fakeKeys) == .disconnected(.connectionLost))
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(7), attribute: AttributeID(serial: 1), keys: fakeKeys) == .disconnected(.remoteRequest))
    }

    @Test func otherCoreBluetoothErrorsKeepTheirCode() {
        #expect(
            CoreBluetoothErrorMapping.bluetoothError(cbError(13), attribute: AttributeID(serial: 1), keys: fakeKeys)
                == .notPermitted("CBError 13 (operation not supported)"))
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(0), attribute: AttributeID(serial: 1), keys: fakeKeys) == .backend("CBError 0 (unknown)"))
        #expect(CoreBluetoothErrorMapping.connectionError(cbError(10), keys: fakeKeys) == .connectionFailed("CBError 10 (connection failed)"))
    }

    @Test(arguments: [(11, BluetoothError.connectionLimitReached), (14, .peerRemovedPairingInformation), (15, .encryptionTimedOut)])
    func securityAndCapacityCodesKeepTheirOwnCase(code: Int, expected: BluetoothError) {
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(code), attribute: AttributeID(serial: 1), keys: fakeKeys) == expected)
    }

    @Test(arguments: [(11, BluetoothError.connectionLimitReached), (14, .peerRemovedPairingInformation), (15, .encryptionTimedOut)])
    func aConnectionAttemptFailingWithASecurityOrCapacityCodeKeepsItsOwnCase(code: Int, expected: BluetoothError) {
        #expect(CoreBluetoothErrorMapping.connectionError(cbError(code), keys: fakeKeys) == expected)
    }
}
