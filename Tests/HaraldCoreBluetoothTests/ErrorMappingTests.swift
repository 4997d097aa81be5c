import Foundation
import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth error mapping")
struct ErrorMappingTests {
    @Test(arguments: [0x01, 0x05, 0x0F, 0x80, 0xFE])
    func attErrorCodesPassThroughAsATTStatus(code: Int) {
        #expect(CoreBluetoothErrorMapping.bluetoothError(attError(code), handle: 0x21, keys: fakeKeys)
            == .attribute(ATTErrorCode(rawValue: UInt8(code)), handle: 0x21))
    }

    @Test func disconnectReasonsFollowTheCBErrorCode() {
        let reason = { (error: NSError?) in CoreBluetoothErrorMapping.disconnectReason(error, keys: fakeKeys) }
        #expect(reason(nil) == .localRequest)
        #expect(reason(cbError(7)) == .remoteRequest)
        #expect(reason(cbError(6)) == .connectionLost)
        #expect(reason(cbError(5)) == .localRequest)
        #expect(reason(cbError(14)) == .other("CBError 14 (peer removed pairing information)"))
    }

    @Test func operationErrorsFromALostLinkMeanDisconnected() {
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(3), handle: 1, keys: fakeKeys) == .disconnected(.connectionLost))
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(7), handle: 1, keys: fakeKeys) == .disconnected(.remoteRequest))
    }

    @Test func otherCoreBluetoothErrorsKeepTheirCode() {
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(13), handle: 1, keys: fakeKeys) == .notPermitted("CBError 13 (operation not supported)"))
        #expect(CoreBluetoothErrorMapping.bluetoothError(cbError(0), handle: 1, keys: fakeKeys) == .backend("CBError 0 (unknown)"))
        #expect(CoreBluetoothErrorMapping.connectionError(cbError(10), keys: fakeKeys) == .connectionFailed("CBError 10 (connection failed)"))
    }
}
