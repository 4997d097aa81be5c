import HaraldAdvertisements
import HaraldCodec
import HaraldCore

/// The advertisement decoders a gateway runs on every advertisement it hears
/// (HaraldAdvertisements): BTHome v2 plain and encrypted, and the whole standard registry.
let advertisementDecoderTargets: [FuzzTarget] = [
    FuzzTarget("BTHome", checkBTHome),
    FuzzTarget("BTHome.Encrypted", checkEncryptedBTHome),
    FuzzTarget("AdvertisementDecoderRegistry", checkDecoderRegistry),
]

/// The bind key and address of the BTHome format's encrypted example (its seed decrypts; most
/// mutations fail the MIC, the ones that pass are decoded like plain packets).
private let fuzzBindKey: [UInt8] = [0x23, 0x1D, 0x39, 0xC1, 0xD7, 0xCC, 0x1A, 0xB1, 0xAE, 0xE2, 0x24, 0xCD, 0x09, 0x6D, 0xB9, 0x32]
private let fuzzAddress = BluetoothAddress("54:48:E6:8F:80:A5")!

/// Plain BTHome service data: decodes or throws, never traps; the readings follow the rules.
@Sendable func checkBTHome(_ bytes: [UInt8]) {
    do {
        requireLawful(try BTHomePacket(serviceData: bytes, address: fuzzAddress), bytes)
    } catch {
        blackHole(String(describing: error))
    }
}

/// The same service data marked encrypted (device information 0x41) with a bind key: the
/// AES-CCM path, its length checks and the MIC.
@Sendable func checkEncryptedBTHome(_ bytes: [UInt8]) {
    do {
        requireLawful(try BTHomePacket(serviceData: [0x41] + bytes, address: fuzzAddress, bindKey: fuzzBindKey), bytes)
    } catch {
        blackHole(String(describing: error))
    }
}

/// Every reading is a finite number, a state or a text; keys are unique once numbered.
private func requireLawful(_ packet: BTHomePacket, _ bytes: [UInt8]) {
    requireLawful(packet.readings, bytes)
    blackHole(packet.packetID)
    blackHole(packet.stoppedAt.map { String(describing: $0) })
}

private func requireLawful(_ readings: [AdvertisementReading], _ bytes: [UInt8]) {
    require(Set(readings.map(\.key)).count == readings.count, "\(bytes.hexString): two readings share a key")
    for reading in readings {
        if case let .number(value) = reading.value { require(value.isFinite, "\(bytes.hexString): \(reading.key) is \(value)") }
        blackHole(reading.value.description)
    }
}

/// Any advertising data through the standard registry (BTHome, SIG service data, beacons,
/// company names): failures are values, never traps; the readings follow the rules.
@Sendable func checkDecoderRegistry(_ bytes: [UInt8]) {
    let decoding = AdvertisementDecoderRegistry.standard.decode(ReceivedAdvertisement(data: AdvertisingData(parsing: bytes), address: fuzzAddress))
    requireLawful(decoding.readings, bytes)
    for failure in decoding.failures { blackHole(String(describing: failure.error)) }
}
