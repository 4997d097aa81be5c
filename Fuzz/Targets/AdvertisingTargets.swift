import HaraldCodec
import HaraldCore
import HaraldProfiles

/// Advertising data and beacon frames (HaraldProfiles/Advertising).
let advertisingTargets: [FuzzTarget] = [
    FuzzTarget("AdvertisingData", checkAdvertisingData),
    FuzzTarget("AdvertisingData.Builder", checkAdvertisingBuilder),
    FuzzTarget("IBeacon", { checkStableValue(IBeacon.self, $0) }),
    FuzzTarget("EddystoneFrame", { checkStableValue(EddystoneFrame.self, $0) }),
]

/// Lenient parsing never fails; strict parsing accepts a subset, and what it accepts the lenient
/// parser reads the same way. Every accessor runs on both, and the structures written back parse
/// to the same structures.
@Sendable func checkAdvertisingData(_ bytes: [UInt8]) {
    let lenient = AdvertisingData(parsing: bytes)
    touchAccessors(lenient)
    let rewritten = AdvertisingData(parsing: lenient.bytes)
    require(
        rewritten.structures == lenient.structures.map { AdvertisingData.Structure(type: $0.type, data: Array($0.data.prefix(254))) },
        "AdvertisingData \(bytes.hexString): written back as \(lenient.bytes.hexString), parses differently")
    touch { () throws(ByteDecodingError) in
        let strict = try AdvertisingData(validating: bytes)
        touchAccessors(strict)
        require(strict.structures == lenient.structures, "AdvertisingData \(bytes.hexString): strict and lenient parses differ")
    }
}

func touchAccessors(_ data: AdvertisingData) {
    blackHole(data.flags)
    blackHole(data.localName)
    blackHole(data.isLocalNameShortened)
    blackHole(data.serviceUUIDs)
    blackHole(data.solicitedServiceUUIDs)
    blackHole(data.serviceData)
    blackHole(data.manufacturerData)
    blackHole(data.txPowerLevel)
    blackHole(data.appearance)
    blackHole(data.iBeacon)
    blackHole(data.eddystone)
}

/// Decodes `T`; a value that decodes must encode, and its encoding must decode to an equal value.
func checkStableValue<T: ByteCodable & Equatable>(_ type: T.Type, _ bytes: [UInt8]) {
    touch { () throws(ByteDecodingError) in
        let value = try T(decoding: bytes)
        let encoded: [UInt8]
        do {
            encoded = try value.encodedBytes()
        } catch {
            fatalError("\(T.self) \(bytes.hexString) decodes but does not encode: \(error)")
        }
        do {
            let again = try T(decoding: encoded)
            require(again == value, "\(T.self) \(bytes.hexString) re-encodes as \(encoded.hexString), which decodes differently")
        } catch {
            fatalError("\(T.self) \(bytes.hexString) re-encodes as \(encoded.hexString), which does not decode: \(error)")
        }
    }
}

/// The builder (`AdvertisingData.device`) and the parser together: a name, service UUIDs and
/// manufacturer data taken from the input are built into advertising data, which the strict
/// parser accepts and whose accessors give back exactly what went in.
///
/// Input: byte 0 holds the counts (bits 0-2: 16-bit UUIDs, bits 3-4: 128-bit UUIDs, bit 5: a
/// name, bit 6: manufacturer data), then the UUIDs (2 and 16 bytes each), the company ID (2
/// bytes), and the rest split evenly between the name and the manufacturer data (at most 64
/// bytes each, so no structure outgrows its length byte).
@Sendable func checkAdvertisingBuilder(_ bytes: [UInt8]) {
    guard let counts = bytes.first else { return }
    var offset = 1
    /// The next `width` bytes as a little-endian integer, or nil at the end of the input.
    func next(_ width: Int) -> UInt64? {
        guard offset + width <= bytes.count else { return nil }
        defer { offset += width }
        return bytes[offset..<(offset + width)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    var services: [BluetoothUUID] = []
    for _ in 0..<Int(counts & 0x07) {
        guard let short = next(2) else { return }
        services.append(BluetoothUUID(UInt16(short)))
    }
    for _ in 0..<Int(counts >> 3 & 0x03) {
        guard let low = next(8), let high = next(8) else { return }
        services.append(BluetoothUUID(high: high, low: low))
    }
    guard let company = next(2) else { return }
    let rest = Array(bytes[offset...])
    let half = rest.count / 2
    let name = counts & 0x20 != 0 ? String(decoding: rest[..<half].prefix(64), as: UTF8.self) : nil
    let manufacturer = counts & 0x40 != 0 ? ManufacturerData(companyID: UInt16(company), data: Array(rest[half...].prefix(64))) : nil
    let built = AdvertisingData.device(name: name, services: services, manufacturer: manufacturer)
    let parsed: AdvertisingData
    do {
        parsed = try AdvertisingData(validating: built.bytes)
    } catch {
        fatalError("AdvertisingData.device built \(built.bytes.hexString), which the strict parser refuses: \(error)")
    }
    require(parsed.structures == built.structures, "AdvertisingData \(built.bytes.hexString) parses to other structures")
    require(parsed.localName == name, "AdvertisingData.device: name \(name ?? "nil") reads back as \(parsed.localName ?? "nil")")
    // The accessor lists each UUID once, however often it was advertised.
    require(
        parsed.serviceUUIDs.count == Set(parsed.serviceUUIDs).count && Set(parsed.serviceUUIDs) == Set(services),
        "AdvertisingData.device: services \(services) read back as \(parsed.serviceUUIDs)")
    require(parsed.manufacturerData == manufacturer, "AdvertisingData.device: manufacturer data reads back differently")
    require(parsed.flags?.rawValue == 0x06, "AdvertisingData.device: flags read back as \(String(describing: parsed.flags))")
}
