import HaraldATT
import HaraldCodec
import HaraldProfiles

/// Standard services for virtual devices.
extension GATTServiceDefinition {
    /// A Device Information service (0x180A) with the usual strings, for virtual devices.
    package static func deviceInformation(manufacturer: String, model: String, serial: String, firmware: String, hardware: String) -> GATTServiceDefinition {
        GATTServiceDefinition(
            uuid: BluetoothUUID(0x180A),
            characteristics: [
                GATTCharacteristicDefinition(
                    uuid: ManufacturerNameString.uuid, properties: [.read], value: wireBytes(ManufacturerNameString(text: manufacturer))),
                GATTCharacteristicDefinition(uuid: ModelNumberString.uuid, properties: [.read], value: wireBytes(ModelNumberString(text: model))),
                GATTCharacteristicDefinition(uuid: SerialNumberString.uuid, properties: [.read], value: wireBytes(SerialNumberString(text: serial))),
                GATTCharacteristicDefinition(uuid: FirmwareRevisionString.uuid, properties: [.read], value: wireBytes(FirmwareRevisionString(text: firmware))),
                GATTCharacteristicDefinition(uuid: HardwareRevisionString.uuid, properties: [.read], value: wireBytes(HardwareRevisionString(text: hardware))),
            ])
    }
}

/// The wire form of a value a simulated device makes itself. Encoding these valid values cannot
/// fail; should an encoder ever break, the device sends an empty value, which every decoder of
/// these characteristics rejects, so the breakage shows in the test that reads it instead of
/// hiding behind hand-written bytes.
func wireBytes(_ value: some ByteEncodable) -> [UInt8] { (try? value.encodedBytes()) ?? [] }
