import HaraldCodec
import HaraldCore
import PropertyBased
import Testing

/// Advertising data written out and parsed back, with structures and device fields drawn at
/// random (seeded by PropertyBased, so a failure prints the seed that replays it).
@Suite("Advertising data round trips")
struct AdvertisingDataRoundTripProperties {
    /// Any AD structure (type and data of at most 254 bytes, what a length byte can hold).
    static let structure = zip(Gen.uint8(in: 1...255), Gen.uint8().array(of: 0...254))
        .map { AdvertisingData.Structure(type: AdvertisingDataType(rawValue: $0), data: $1) }

    static let uuid = zip(Gen.bool, Gen.uint16(), Gen.uint64(), Gen.uint64())
        .map { isShort, short, high, low in isShort ? BluetoothUUID(short) : BluetoothUUID(high: high, low: low) }

    @Test func anyStructuresWrittenOutParseBackTheSame() async {
        await propertyCheck(input: Self.structure.array(of: 0...8)) { structures in
            let bytes = AdvertisingData(structures: structures).bytes
            #expect(AdvertisingData(parsing: bytes).structures == structures, "bytes \(bytes.hexString)")
        }
    }

    @Test func aBuiltDeviceAdvertisementReadsBackItsNameServicesAndManufacturerData() async {
        let manufacturer = zip(Gen.uint16(), Gen.uint8().array(of: 0...24)).map { ManufacturerData(companyID: $0, data: $1) }
        await propertyCheck(
            input: Gen.uint8(in: 0x20...0x7E).array(of: 0...24).optional, Self.uuid.array(of: 0...6), manufacturer.optional
        ) { nameBytes, services, manufacturer in
            let name = nameBytes.map { String(decoding: $0, as: UTF8.self) }
            let bytes = AdvertisingData.device(name: name, services: services, manufacturer: manufacturer).bytes
            let parsed = try AdvertisingData(validating: bytes)
            #expect(parsed.localName == name)
            #expect(Set(parsed.serviceUUIDs) == Set(services))
            #expect(parsed.manufacturerData == manufacturer)
        }
    }
}
