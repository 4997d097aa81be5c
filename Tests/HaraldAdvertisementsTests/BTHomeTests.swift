import HaraldAdvertisements
import HaraldCodec
import HaraldCore
import Testing

/// BTHome v2 against the examples the format publishes (bthome.io/format, bthome.io/encryption).
@Suite("BTHome")
struct BTHomeTests {
    /// One object of the format's tables: its example (object id and value) and the result the
    /// table gives.
    struct Example: Sendable, CustomTestStringConvertible {
        let bytes: String
        let key: String
        let value: AdvertisementValue
        var testDescription: String { "\(bytes) → \(key) \(value)" }
    }

    static func n(_ bytes: String, _ key: String, _ value: Double) -> Example { Example(bytes: bytes, key: key, value: .number(value)) }
    static func b(_ bytes: String, _ key: String, _ value: Bool) -> Example { Example(bytes: bytes, key: key, value: .bool(value)) }
    static func t(_ bytes: String, _ key: String, _ value: String) -> Example { Example(bytes: bytes, key: key, value: .text(value)) }

    /// Every example of the format's sensor, binary sensor, event and device tables.
    static let examples: [Example] = [
        n("518756", "acceleration", 22.151), n("0161", "battery", 97), n("12E204", "co2", 1250),
        n("56E803", "conductivity", 1000), n("0960", "count", 96), n("3D0960", "count", 24585),
        n("3E2A2C0960", "count", 1_611_213_866), n("59EA", "count", -22), n("5AEAEA", "count", -5398),
        n("5BEA0234EA", "count", -365_690_134), n("434E34", "current", 13.39), n("5D02EA", "current", -5.63),
        n("08CA06", "dew_point", 17.38), n("400C00", "distance_mm", 12), n("414E00", "distance_m", 7.8),
        n("424E3400", "duration", 13.39), n("4D12138A14", "energy", 344_593.17), n("0A138A14", "energy", 1346.067),
        n("4B138A14", "gas", 1346.067), n("4C41018A01", "gas", 25821.505), n("528756", "gyroscope", 22.151),
        n("03BF13", "humidity", 50.55), n("2E23", "humidity", 35), n("05138A14", "illuminance", 13460.67),
        n("065E1F", "mass_kg", 80.3), n("073E1D", "mass_lb", 74.86), n("14020C", "moisture", 30.74),
        n("2F23", "moisture", 35), n("0D120C", "pm25", 3090), n("0E021C", "pm10", 7170), n("0B021B00", "power", 69.14),
        n("5C02FBFFFF", "power", -12.78), n("04138A01", "pressure", 1008.83), n("3F020C", "rotation", 307.4),
        n("444E34", "speed", 133.9), n("57EA", "temperature", -22), n("58EA", "temperature", -7.7),
        n("451101", "temperature", 27.3), n("02CA09", "temperature", 25.06), n("133301", "tvoc", 307),
        n("0C020C", "voltage", 3.074), n("4A020C", "voltage", 307.4), n("4E87562A01", "volume", 19551.879),
        n("478756", "volume", 2215.1), n("48DC87", "volume_ml", 34780), n("5587562A01", "volume_storage", 19551.879),
        n("49DC87", "volume_flow_rate", 34.78), n("4632", "uv_index", 5), n("4F87562A01", "water", 19551.879),
        n("5E9F8C", "direction", 359.99), n("5FA00F", "precipitation", 400), n("505D396164", "timestamp", 1_684_093_277),
        t("530C48656C6C6F20576F726C6421", "text", "Hello World!"),
        t("540C48656C6C6F20576F726C6421", "raw", "48656c6c6f20576f726c6421"),
        b("1501", "battery_low", true), b("1601", "battery_charging", true), b("1700", "carbon_monoxide", false),
        b("1801", "cold", true), b("1900", "connectivity", false), b("1A00", "door", false), b("1B01", "garage_door", true),
        b("1C01", "gas_detected", true), b("0F01", "generic_boolean", true), b("1D00", "heat", false), b("1E01", "light", true),
        b("1F01", "lock", true), b("2001", "moisture_detected", true), b("2100", "motion", false), b("2201", "moving", true),
        b("2301", "occupancy", true), b("1100", "opening", false), b("2400", "plug", false), b("1001", "power_on", true),
        b("2500", "presence", false), b("2601", "problem", true), b("2701", "running", true), b("2800", "safety", false),
        b("2901", "smoke", true), b("2A00", "sound", false), b("2B00", "tamper", false), b("2C01", "vibration", true),
        b("2D01", "window", true),
        t("3A00", "button", "none"), t("3A01", "button", "press"), t("3A02", "button", "double_press"),
        t("3A03", "button", "triple_press"), t("3A04", "button", "long_press"), t("3A05", "button", "long_double_press"),
        t("3A06", "button", "long_triple_press"), t("3A80", "button", "hold_press"), t("3C0000", "dimmer", "none"),
        t("3C0103", "dimmer", "rotate_left 3"), t("3C020A", "dimmer", "rotate_right 10"),
        n("F00100", "device_type_id", 1), t("F100010204", "firmware_version", "4.2.1.0"), t("F2000106", "firmware_version", "6.1.0"),
    ]

    @Test(arguments: examples)
    func everyObjectOfTheFormatTablesDecodesItsPublishedExample(_ example: Example) throws {
        let packet = try BTHomePacket(serviceData: [0x40] + hex(example.bytes))
        #expect(packet.stoppedAt == nil)
        #expect(packet.readings.map(\.key) == [example.key])
        #expect(packet.readings.first?.value == example.value)
    }

    @Test func everyObjectIDOfTheTableHasAPublishedExampleExceptTheNewestFive() {
        let covered = Set(Self.examples.compactMap { hex($0.bytes).first })
        let missing = BTHomeObject.all.map(\.id).filter { !covered.contains($0) && $0 != 0x00 }
        #expect(missing == [0x60, 0x61, 0x62, 0x63, 0x64])
    }

    @Test func theNewestObjectsDecodeWithTheirSizesFactorsAndSigns() throws {
        let packet = try BTHomePacket(serviceData: hex("40 6003 61E803 62C0BDF0FF 6340420F00 6405"))
        #expect(packet.readings.map(\.key) == ["channel", "rotational_speed", "speed", "acceleration", "light_level"])
        #expect(packet.readings.map(\.value) == [.number(3), .number(1000), .number(-1), .number(1), .number(5)])
    }

    @Test func theFormatsExampleAdvertisementDecodesToATemperatureAndAHumidity() throws {
        let data = AdvertisingData(parsing: hex("020106 0B094449592D73656E736F72 0A16D2FC4002C40903BF13"))
        let packet = try #require(try BTHomePacket(advertisingData: data))
        #expect(packet.deviceInformation.rawValue == 0x40)
        #expect(packet.readings.map(\.key) == ["temperature", "humidity"])
        #expect(packet.readings.map(\.value) == [.number(25), .number(50.55)])
        #expect(packet.readings.map(\.unit) == ["°C", "%"])
        #expect(packet.readings.map(\.deviceClass) == ["temperature", "humidity"])
    }

    @Test func theDeviceInformationOctetNamesEncryptionTriggerAndVersion() {
        let plain = BTHomeDeviceInformation(rawValue: 0x40)
        #expect(!plain.isEncrypted && !plain.isTriggerBased && plain.version == 2)
        let button = BTHomeDeviceInformation(rawValue: 0x45)
        #expect(button.isEncrypted && button.isTriggerBased && button.version == 2)
    }

    @Test func aVersion1DeviceInformationOctetIsRejected() {
        #expect(throws: BTHomeError.unsupportedVersion(1)) { try BTHomePacket(serviceData: hex("20 02C409")) }
    }

    @Test func emptyServiceDataIsRejected() {
        #expect(throws: BTHomeError.empty) { try BTHomePacket(serviceData: []) }
    }

    @Test func thePacketIDIsKeptApartFromTheMeasurements() throws {
        let packet = try BTHomePacket(serviceData: hex("40 0009 02C409"))
        #expect(packet.packetID == 9)
        #expect(packet.readings.map(\.key) == ["temperature"])
    }

    @Test func objectsOfTheSameIDAreNumberedInTheOrderSent() throws {
        let packet = try BTHomePacket(serviceData: hex("40 02C409 02CA09 02D209"))
        #expect(packet.readings.map(\.key) == ["temperature", "temperature_2", "temperature_3"])
        #expect(packet.readings.map(\.value) == [.number(25), .number(25.06), .number(25.14)])
    }

    @Test func anUnknownObjectIDStopsDecodingNamingItsOffsetAndKeepsWhatCameBefore() throws {
        let packet = try BTHomePacket(serviceData: hex("40 02C409 03BF13 EE 0102"))
        #expect(packet.stoppedAt == .unknownObjectID(0xEE, offset: 7))
        #expect(packet.readings.map(\.key) == ["temperature", "humidity"])
    }

    @Test func anObjectRunningPastTheEndThrowsNamingItsOffset() {
        #expect(throws: BTHomeError.truncatedObject(0x03, offset: 4)) { try BTHomePacket(serviceData: hex("40 02C409 03BF")) }
        #expect(throws: BTHomeError.truncatedObject(0x53, offset: 1)) { try BTHomePacket(serviceData: hex("40 5305414243")) }
    }

    @Test func aBinarySensorOtherThanZeroOrOneIsRejected() {
        #expect(throws: BTHomeError.invalidObject(0x1A, offset: 1)) { try BTHomePacket(serviceData: hex("40 1A02")) }
    }

    @Test func textThatIsNotUTF8IsRejected() {
        #expect(throws: BTHomeError.invalidObject(0x53, offset: 1)) { try BTHomePacket(serviceData: hex("40 5302C328")) }
    }

    // MARK: Encryption (bthome.io/encryption's example)

    static let bindKey = hex("231d39c1d7cc1ab1aee224cd096db932")
    static let sensor = BluetoothAddress("54:48:E6:8F:80:A5")!
    static let encrypted = hex("41 e445f3c9962b 33221100 6c7c4519")

    @Test func theFormatsEncryptedExampleDecryptsWithItsBindKey() throws {
        let packet = try BTHomePacket(serviceData: Self.encrypted, address: Self.sensor, bindKey: Self.bindKey)
        #expect(packet.deviceInformation.isEncrypted)
        #expect(packet.counter == 1_122_867)
        #expect(packet.readings.map(\.key) == ["temperature", "humidity"])
        #expect(packet.readings.map(\.value) == [.number(25.06), .number(50.55)])
    }

    @Test func anEncryptedPacketFailsAuthenticationWithAnotherKeyOrAddress() {
        var wrongKey = Self.bindKey
        wrongKey[0] ^= 1
        #expect(throws: BTHomeError.authenticationFailed) {
            try BTHomePacket(serviceData: Self.encrypted, address: Self.sensor, bindKey: wrongKey)
        }
        #expect(throws: BTHomeError.authenticationFailed) {
            try BTHomePacket(serviceData: Self.encrypted, address: BluetoothAddress("54:48:E6:8F:80:A6")!, bindKey: Self.bindKey)
        }
    }

    @Test func anEncryptedPacketNeedsASixteenOctetBindKey() {
        #expect(throws: BTHomeError.missingBindKey) { try BTHomePacket(serviceData: Self.encrypted, address: Self.sensor) }
        #expect(throws: BTHomeError.invalidBindKey(length: 15)) {
            try BTHomePacket(serviceData: Self.encrypted, address: Self.sensor, bindKey: Array(Self.bindKey.prefix(15)))
        }
    }

    @Test func anEncryptedPacketShorterThanItsCounterAndMICIsRejected() {
        #expect(throws: BTHomeError.encryptedPacketTooShort(length: 7)) {
            try BTHomePacket(serviceData: hex("41 33221100 6c7c45"), address: Self.sensor, bindKey: Self.bindKey)
        }
    }
}
