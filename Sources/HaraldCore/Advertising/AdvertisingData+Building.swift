import HaraldCodec

extension AdvertisingData {
    /// Advertising data with LE General Discoverable flags, a complete local name and complete
    /// lists of the given service UUIDs (16-bit and 128-bit ones in their own structures).
    public static func device(name: String?, services: [BluetoothUUID] = [], manufacturer: ManufacturerData? = nil) -> AdvertisingData {
        var structures = [Structure(type: .flags, data: [0x06])]
        let short = services.compactMap(\.uuid16)
        if !short.isEmpty {
            structures.append(Structure(type: .completeList16BitServiceUUIDs, data: short.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        }
        let long = services.filter { $0.uuid16 == nil }
        if !long.isEmpty {
            var writer = ByteWriter()
            for uuid in long {
                writer.write(uuid.low)
                writer.write(uuid.high)
            }
            structures.append(Structure(type: .completeList128BitServiceUUIDs, data: writer.bytes))
        }
        if let name { structures.append(Structure(type: .completeLocalName, data: Array(name.utf8))) }
        if let manufacturer {
            structures.append(
                Structure(
                    type: .manufacturerSpecificData, data: [UInt8(manufacturer.companyID & 0xFF), UInt8(manufacturer.companyID >> 8)] + manufacturer.data))
        }
        return AdvertisingData(structures: structures)
    }
}
