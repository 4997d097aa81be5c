import HaraldCodec
import HaraldCore
import HaraldProfiles

/// Advertising data and beacon frames (HaraldProfiles/Advertising).
let advertisingTargets: [FuzzTarget] = [
    FuzzTarget("AdvertisingData", checkAdvertisingData),
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
