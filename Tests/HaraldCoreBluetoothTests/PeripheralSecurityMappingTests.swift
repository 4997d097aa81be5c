import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldProfiles
import Testing

/// What a definition's security becomes in CoreBluetooth's permissions: CoreBluetooth refuses
/// unencrypted centrals itself (reads, writes and subscriptions), so every encrypted level, on a
/// characteristic that only notifies too, must reach it.
@Suite("CoreBluetooth peripheral security mapping")
struct PeripheralSecurityMappingTests {
    typealias Backend = CoreBluetoothPeripheralBackend<FakePeripheralManager>
    typealias Spec = CoreBluetoothCharacteristicSpec

    @Test(arguments: [AttributeSecurity.encrypted, .authenticated, .authenticatedSecureConnections, AttributeSecurity.encrypted.minimumKeySize(7)])
    func aProtectedNotifyOnlyCharacteristicNeedsEncryptionToSubscribe(_ security: AttributeSecurity) {
        let spec = Backend.spec(CharacteristicDefinition(.heartRateMeasurement, security: security))
        #expect(spec.properties & Spec.notifyEncryptionRequired != 0, "\(security)")
        #expect(spec.permissions == Spec.readEncryptionRequired, "\(security)")
        #expect(spec.value == nil)
    }

    @Test func anOpenNotifyOnlyCharacteristicStaysOpen() {
        let spec = Backend.spec(CharacteristicDefinition(.heartRateMeasurement))
        #expect(spec.properties & Spec.notifyEncryptionRequired == 0)
        #expect(spec.permissions == Spec.readable)
    }

    @Test func requiringLevel4ReachesEveryCharacteristicsPermissions() throws {
        let definition = try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "SC only")) {
            try ServiceDefinition(BluetoothUUID(0x180F)) { try CharacteristicDefinition(.batteryLevel, value: BatteryLevel(percent: 87)!) }
        }.requiring(.authenticatedSecureConnections)
        let spec = Backend.spec(definition.services[0].characteristics[0])
        #expect(spec.permissions == Spec.readEncryptionRequired)
        #expect(spec.value == nil, "a protected value is never cached in CoreBluetooth")
    }
}
