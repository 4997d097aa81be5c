import HaraldCodec
import HaraldCore
import PropertyBased
import Testing

/// Advertising data built and parsed back, with generated contents (seeded by PropertyBased, so
/// a failure prints the seed that replays it).
@Suite("Property: advertising data round trips")
struct AdvertisingDataProperties {
    /// Any list of AD structures (any type, 0–29 bytes of data each) survives its wire form, both
    /// parsers.
    @Test func structuresSurviveTheirWireForm() async {
        await propertyCheck(count: 1000, input: Gen.uint8().array(of: 0...6), Gen.uint8().array(of: 0...200)) { types, pool in
            var offset = 0
            let structures = types.map { type -> AdvertisingData.Structure in
                let count = pool.isEmpty ? 0 : Int(pool[offset % pool.count]) % 30
                let data = (0..<count).map { pool.isEmpty ? 0 : pool[(offset + 1 + $0) % pool.count] }
                offset += count + 1
                return AdvertisingData.Structure(type: AdvertisingDataType(rawValue: type), data: data)
            }
            let data = AdvertisingData(structures: structures)
            #expect(AdvertisingData(parsing: data.bytes) == data)
            #expect(data.bytes.count == structures.reduce(0) { $0 + 2 + $1.data.count })
        }
    }

    /// A device's advertisement keeps its name, services and manufacturer data through the wire.
    @Test func aDevicesNameServicesAndManufacturerDataSurviveTheWire() async {
        await propertyCheck(
            count: 500, input: Gen.uint8().array(of: 0...12), Gen<UInt16>.value().array(of: 0...3), Gen<UInt64>.value().array(of: 0...1),
            Gen.uint8().array(of: 0...8)
        ) { nameBytes, shorts, wide, payload in
            let name = String(decoding: nameBytes.map { 0x41 + $0 % 26 }, as: UTF8.self)
            let services = shorts.map { BluetoothUUID($0) } + wide.map { BluetoothUUID(high: $0, low: ~$0) }
            let manufacturer = payload.isEmpty ? nil : ManufacturerData(companyID: UInt16(payload[0]) << 8 | 0x4C, data: payload)
            let built = AdvertisingData.device(name: name, services: services, manufacturer: manufacturer)
            let parsed = try AdvertisingData(validating: built.bytes)
            #expect(parsed.localName == name)
            #expect(Set(parsed.serviceUUIDs) == Set(services))
            #expect(parsed.manufacturerData == manufacturer)
        }
    }
}
