import HaraldCodec
import HaraldCore
import Testing

@Suite("iBeacon and Eddystone frames")
struct BeaconTests {
    // protocols.md E.2, as parsed by bumble.
    let iBeaconAdvertisement: [UInt8] = [
        0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15, 0xB5, 0xB1, 0x82, 0xC7, 0xEA, 0xB1, 0x49, 0x88,
        0xAA, 0x99, 0xB5, 0xC1, 0x51, 0x70, 0x08, 0xD9, 0x00, 0x01, 0x00, 0x02, 0xC6,
    ]
    // protocols.md E.3: Eddystone-UID, as parsed by bumble.
    let eddystoneUIDAdvertisement: [UInt8] = [
        0x02, 0x01, 0x06, 0x03, 0x03, 0xAA, 0xFE, 0x17, 0x16, 0xAA, 0xFE, 0x00, 0xE7, 0x8B, 0x0C, 0xA7, 0x50,
        0x09, 0x54, 0x77, 0xCB, 0x3E, 0x77, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
    ]

    @Test func iBeaconFieldsAreReadBigEndian() throws {
        let beacon = try #require(AdvertisingData(parsing: iBeaconAdvertisement).iBeacon)
        #expect(beacon.proximityUUID == BluetoothUUID("B5B182C7-EAB1-4988-AA99-B5C1517008D9"))
        #expect(beacon.major == 1)
        #expect(beacon.minor == 2)
        #expect(beacon.measuredPower == -58)
    }

    @Test func iBeaconAdvertisementIsBuiltByteForByte() throws {
        let beacon = try #require(AdvertisingData(parsing: iBeaconAdvertisement).iBeacon)
        #expect(AdvertisingData(iBeacon: beacon).bytes == iBeaconAdvertisement)
    }

    @Test func manufacturerDataOfAnotherCompanyIsNoIBeacon() {
        var bytes = iBeaconAdvertisement
        bytes[5] = 0x59  // Nordic instead of Apple
        #expect(AdvertisingData(parsing: bytes).iBeacon == nil)
    }

    @Test func eddystoneUIDIsRead() throws {
        let frame = try #require(AdvertisingData(parsing: eddystoneUIDAdvertisement).eddystone)
        guard case .uid(let uid) = frame else { Issue.record("expected UID, got \(frame)"); return }
        #expect(uid.txPowerAt0m == -25)
        #expect(try uid.namespace == [UInt8](hex: "8b0ca750095477cb3e77"))
        #expect(uid.instance == [0, 0, 0, 0, 0, 1])
    }

    @Test func eddystoneUIDAdvertisementIsBuiltByteForByte() throws {
        let frame = try #require(AdvertisingData(parsing: eddystoneUIDAdvertisement).eddystone)
        #expect(try AdvertisingData(eddystone: frame).bytes == eddystoneUIDAdvertisement)
    }

    @Test func eddystoneUIDWithoutReservedBytesIsAccepted() throws {
        // Beacons of the first specification sent 18-byte UID frames.
        let frame = Array(eddystoneUIDAdvertisement[11...28])
        #expect(throws: Never.self) { try EddystoneFrame(decoding: frame) }
    }

    @Test func eddystoneURLUsesSchemeAndExpansionCodes() throws {
        // "http://www." = 0x00, ".com/" = 0x00 (Eddystone-URL specification).
        let frame = EddystoneFrame.url(EddystoneURL(txPowerAt0m: 18, url: "http://www.google.com/"))
        let bytes = try frame.encodedBytes()
        #expect(bytes == [0x10, 0x12, 0x00] + Array("google".utf8) + [0x00])
        #expect(try EddystoneFrame(decoding: bytes) == frame)
    }

    @Test func eddystoneURLPrefersTheLongestSchemeAndExpansion() throws {
        let bytes = try EddystoneURL(txPowerAt0m: -18, url: "https://www.example.org").encodedBytes()
        #expect(bytes == [0x10, 0xEE, 0x01] + Array("example".utf8) + [0x08])
    }

    @Test func eddystoneURLLongerThan17BytesIsRefused() {
        #expect(throws: ByteEncodingError.self) {
            try EddystoneURL(txPowerAt0m: 0, url: "https://a-very-long-host-name.example").encodedBytes()
        }
    }

    @Test func eddystoneURLWithAnotherSchemeIsRefused() {
        #expect(throws: ByteEncodingError.self) { try EddystoneURL(txPowerAt0m: 0, url: "ftp://x.org").encodedBytes() }
    }

    @Test func eddystoneURLWithReservedByteIsRejected() {
        #expect(throws: ByteDecodingError.self) { try EddystoneFrame(decoding: [0x10, 0x00, 0x02, 0x61, 0x0E]) }
    }

    @Test func eddystoneTLMFieldsAreRead() throws {
        // 3000 mV, 23.5 °C (0x1780 in 8.8), 256 advertisements, 409.6 s (4096 tenths).
        let bytes: [UInt8] = [0x20, 0x00, 0x0B, 0xB8, 0x17, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00]
        let frame = try EddystoneFrame(decoding: bytes)
        guard case .tlm(let tlm) = frame else { Issue.record("expected TLM, got \(frame)"); return }
        #expect(tlm.batteryVoltage == 3000)
        #expect(tlm.temperature == 23.5)
        #expect(tlm.advertisingCount == 256)
        #expect(tlm.uptime == .milliseconds(409_600))
        #expect(try frame.encodedBytes() == bytes)
    }

    @Test func eddystoneTLMMarksUnmeasuredValues() throws {
        let tlm = EddystoneTLM(batteryVoltage: nil, temperature: nil, advertisingCount: 1, uptimeTenths: 2)
        let bytes = try tlm.encodedBytes()
        #expect(Array(bytes[2..<6]) == [0x00, 0x00, 0x80, 0x00])
        #expect(try EddystoneTLM(decoding: bytes) == tlm)
    }

    @Test func negativeTemperatureRoundTrips() throws {
        let tlm = EddystoneTLM(batteryVoltage: 2900, temperature: -10.25, advertisingCount: 0, uptimeTenths: 0)
        #expect(try EddystoneTLM(decoding: tlm.encodedBytes()).temperature == -10.25)
    }

    @Test func eddystoneEIDRoundTrips() throws {
        let frame = EddystoneFrame.eid(txPowerAt0m: -4, identifier: [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(try EddystoneFrame(decoding: frame.encodedBytes()) == frame)
    }

    @Test func unknownEddystoneFrameTypeIsRejected() {
        #expect(throws: ByteDecodingError.self) { try EddystoneFrame(decoding: [0x40, 0x00]) }
        #expect(AdvertisingData(parsing: [0x05, 0x16, 0xAA, 0xFE, 0x40, 0x00]).eddystone == nil)
    }

    @Test func everyTruncationOfABeaconFrameThrowsInsteadOfTrapping() {
        let iBeacon = Array(iBeaconAdvertisement[7...])
        let uid = Array(eddystoneUIDAdvertisement[11...])
        let tlm: [UInt8] = [0x20, 0x00, 0x0B, 0xB8, 0x17, 0x80, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x00]
        for length in 0..<iBeacon.count {
            #expect(throws: ByteDecodingError.self) { try IBeacon(decoding: iBeacon.prefix(length)) }
        }
        for frame in [uid, tlm] {
            // A UID frame may legally omit its last two (reserved) bytes.
            for length in 0..<(frame == uid ? frame.count - 2 : frame.count) {
                #expect(throws: ByteDecodingError.self) { try EddystoneFrame(decoding: frame.prefix(length)) }
            }
        }
    }
}
