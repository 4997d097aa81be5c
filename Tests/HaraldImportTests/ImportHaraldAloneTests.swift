import Harald
import Testing

// This target depends on Harald alone, its files import nothing else of the package, and it is
// compiled with MemberImportVisibility: a name used here (a type, or a member an extension
// declares) must come through `import Harald`. If Harald stopped re-exporting a module its
// public declarations name, this file would not compile.
//
// The types are representative of each module Harald's public signatures name (measured from
// Harald's symbol graph): HaraldCodec, HaraldCore and HaraldProfiles.

/// What an app does with `import Harald` alone: names the vocabulary and uses the codec.
@Suite("import Harald alone")
struct ImportHaraldAloneTests {
    /// HaraldCore's vocabulary: addresses, signal strength, error codes, security.
    @Test func namesTheCoreVocabulary() throws {
        let rssi: RSSI = RSSI(dBm: -60)
        #expect(rssi > RSSI(dBm: -90))
        let address = try #require(BluetoothAddress("C0:FF:EE:00:00:01", kind: .random))
        #expect(PeripheralIdentifier(address: address).address == address)
        let refusal: ATTErrorCode = .insufficientAuthentication
        #expect(refusal != .readNotPermitted)
        #expect(SecurityLevel.authenticated > .encrypted)
        let properties: CharacteristicProperties = [.read, .notify]
        #expect(properties.contains(.notify))
    }

    /// HaraldCodec: UUIDs, decoding a value and its error.
    @Test func usesTheCodec() throws {
        #expect(HeartRateMeasurement.uuid == BluetoothUUID(0x2A37))
        let battery = try BatteryLevel(decoding: [87])
        #expect(battery.percent == 87)
        #expect(throws: ByteDecodingError.self) { try BatteryLevel(decoding: [UInt8]()) }
    }

    /// HaraldProfiles: the SIG values the typed characteristic specs carry.
    @Test func namesTheProfileValues() throws {
        let spec: Characteristic<HeartRateMeasurement, Notify> = .heartRateMeasurement
        #expect(spec.uuid == HeartRateMeasurement.uuid)
        let measurement = try HeartRateMeasurement(decoding: [0x00, 72])
        #expect(measurement.heartRate == 72)
        let location: BodySensorLocation = .chest
        #expect(try CharacteristicDefinition(.bodySensorLocation, value: location).value == [0x01])
    }
}
