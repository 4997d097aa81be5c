import HaraldAdvertisements
import HaraldCodec
import HaraldCore
import PropertyBased
import Testing

/// The decoder registry: what the built-in decoders read from whole advertisements, how a kit
/// extends it, and that bad bytes become failures.
@Suite("Advertisement decoder registry")
struct AdvertisementDecoderRegistryTests {
    static func advertisement(_ structures: [AdvertisingData.Structure], from address: BluetoothAddress? = nil) -> ReceivedAdvertisement {
        ReceivedAdvertisement(data: AdvertisingData(structures: structures), address: address)
    }

    static func serviceData(_ uuid: UInt16, _ bytes: [UInt8]) -> AdvertisingData.Structure {
        AdvertisingData.Structure(type: .serviceData16BitUUID, data: [UInt8(uuid & 0xFF), UInt8(uuid >> 8)] + bytes)
    }

    @Test func bthomeServiceDataBecomesReadingsNamedForTheirDecoder() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(Self.advertisement([Self.serviceData(0xFCD2, hex("40 02C409 0161"))]))
        #expect(decoding.failures.isEmpty)
        #expect(
            decoding["temperature"] == AdvertisementReading(key: "temperature", value: .number(25), unit: "°C", deviceClass: "temperature", decoder: "BTHome"))
        #expect(decoding["battery"]?.value == .number(97))
    }

    @Test func aBindKeyGivenToTheRegistryDecryptsThatDevicesPackets() {
        var decoders = AdvertisementDecoderRegistry.standard
        let sensor = BluetoothAddress("54:48:E6:8F:80:A5")!
        decoders.setBTHomeBindKey(hex("231d39c1d7cc1ab1aee224cd096db932"), for: sensor)
        let encrypted = Self.advertisement([Self.serviceData(0xFCD2, hex("41 e445f3c9962b 33221100 6c7c4519"))], from: sensor)
        let decoding = decoders.decode(encrypted)
        #expect(decoding.readings.map(\.key) == ["temperature", "humidity"])
        #expect(AdvertisementDecoderRegistry.standard.decode(encrypted).failures == [.init(decoder: "BTHome", error: .bthome(.missingBindKey))])
    }

    @Test func batteryServiceDataBecomesABatteryPercentage() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(Self.advertisement([Self.serviceData(0x180F, [85])]))
        #expect(decoding["battery"] == AdvertisementReading(key: "battery", value: .number(85), unit: "%", deviceClass: "battery", decoder: "SIG service data"))
    }

    @Test func environmentalSensingTemperatureHumidityAndPressureServiceData() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(
            Self.advertisement([
                Self.serviceData(0x2A6E, hex("C409")), Self.serviceData(0x2A6F, hex("BF13")), Self.serviceData(0x2A6D, hex("02760F00")),
            ]))
        #expect(decoding.readings.map(\.key) == ["pressure", "temperature", "humidity"])
        #expect(decoding["temperature"]?.value == .number(25))
        #expect(decoding["humidity"]?.value == .number(50.55))
        #expect(decoding["pressure"]?.value == .number(1013.25))
        #expect(decoding["pressure"]?.unit == "hPa")
    }

    @Test func valuesTheSensorMarksAsNotKnownGiveNoReading() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(
            Self.advertisement([
                Self.serviceData(0x2A6E, hex("0080")), Self.serviceData(0x2A6F, hex("FFFF")), Self.serviceData(0x180F, [0xFF]),
            ]))
        #expect(decoding.readings.isEmpty)
        #expect(decoding.failures.isEmpty)
    }

    @Test func healthThermometerServiceDataGoesThroughTheTemperatureMeasurementCodec() {
        // Flags 0 (Celsius, nothing optional), then 36.5 as an IEEE-11073 FLOAT: mantissa 365, exponent −1.
        let decoding = AdvertisementDecoderRegistry.standard.decode(Self.advertisement([Self.serviceData(0x2A1C, hex("00 6D0100FF"))]))
        #expect(decoding["temperature"]?.value == .number(36.5))
    }

    @Test func manufacturerDataNamesTheCompany() {
        let data = AdvertisingData(structures: [.init(type: .manufacturerSpecificData, data: [0x59, 0x00, 0x01])])
        let decoding = AdvertisementDecoderRegistry.standard.decode(ReceivedAdvertisement(data: data))
        #expect(decoding["manufacturer"]?.value == .text("Nordic Semiconductor ASA"))
    }

    @Test func iBeaconAndEddystoneTelemetryBecomeReadings() {
        let beacon = IBeacon(proximityUUID: BluetoothUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"), major: 1, minor: 2, measuredPower: -59)
        let tlm = EddystoneTLM(batteryVoltage: 3000, temperature: 21.5, advertisingCount: 10, uptimeTenths: 25)
        var structures = AdvertisingData(structures: [.init(type: .manufacturerSpecificData, data: [0x4C, 0x00])]).structures
        structures[0].data = [0x4C, 0x00] + ManufacturerData(iBeacon: beacon).data
        structures.append(Self.serviceData(0xFEAA, (try? EddystoneFrame.tlm(tlm).encodedBytes()) ?? []))
        let decoding = AdvertisementDecoderRegistry.standard.decode(ReceivedAdvertisement(data: AdvertisingData(structures: structures)))
        #expect(decoding["ibeacon_major"]?.value == .number(1))
        #expect(decoding["ibeacon_tx_power"]?.unit == "dBm")
        #expect(decoding["battery_voltage"]?.value == .number(3))
        #expect(decoding["temperature"]?.value == .number(21.5))
        #expect(decoding["uptime"]?.value == .number(2.5))
        #expect(decoding["manufacturer"]?.value == .text("Apple, Inc."))
    }

    @Test func badBytesBecomeFailuresNamingTheirDecoder() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(
            Self.advertisement([
                Self.serviceData(0xFCD2, hex("40 02C4")), Self.serviceData(0x180F, [200]), Self.serviceData(0xFEAA, [0x77]),
            ]))
        #expect(decoding.readings.isEmpty)
        #expect(decoding.failures.map(\.decoder) == ["BTHome", "SIG service data", "Beacon"])
        #expect(decoding.failures.first?.error == .bthome(.truncatedObject(0x02, offset: 1)))
    }

    @Test func anUnknownBTHomeObjectKeepsTheReadingsBeforeItAndReportsWhereItStopped() {
        let decoding = AdvertisementDecoderRegistry.standard.decode(Self.advertisement([Self.serviceData(0xFCD2, hex("40 02C409 EE"))]))
        #expect(decoding.readings.map(\.key) == ["temperature"])
        #expect(decoding.failures == [.init(decoder: "BTHome", error: .bthome(.unknownObjectID(0xEE, offset: 4)))])
    }

    struct VendorDecoder: AdvertisementDecoder {
        var name: String { "Vendor" }
        var key = "temperature"
        func decode(_ advertisement: ReceivedAdvertisement, into result: inout AdvertisementDecoding) {
            guard let data = advertisement.data.manufacturerData, data.companyID == 0xFFFF else { return }
            guard let first = data.data.first else {
                result.failures.append(.init(decoder: name, error: .rejected("empty")))
                return
            }
            result.readings.append(AdvertisementReading(key: key, value: .number(Double(first)), unit: "°C", decoder: name))
        }
    }

    @Test func aKitsDecoderRunsAfterTheBuiltInsAndRepeatedKeysAreNumbered() {
        var decoders = AdvertisementDecoderRegistry.standard
        decoders.register(VendorDecoder())
        let data = AdvertisingData(structures: [
            Self.serviceData(0xFCD2, hex("40 02C409 02CA09")), .init(type: .manufacturerSpecificData, data: [0xFF, 0xFF, 20]),
        ])
        let decoding = decoders.decode(ReceivedAdvertisement(data: data))
        #expect(decoding.readings.map(\.key) == ["temperature", "temperature_2", "temperature_3"])
        #expect(decoding.readings.map(\.decoder) == ["BTHome", "BTHome", "Vendor"])
    }

    @Test func registeringADecoderUnderATakenNameReplacesIt() {
        var decoders = AdvertisementDecoderRegistry()
        decoders.register(VendorDecoder())
        decoders.register(VendorDecoder(key: "heat"))
        #expect(decoders.decoders.count == 1)
        let data = AdvertisingData(structures: [.init(type: .manufacturerSpecificData, data: [0xFF, 0xFF, 20])])
        #expect(decoders.decode(ReceivedAdvertisement(data: data)).readings.map(\.key) == ["heat"])
        decoders.unregister(named: "Vendor")
        #expect(decoders.decoders.isEmpty)
    }

    @Test func arbitraryServiceDataForEveryBuiltInUUIDNeverTraps() async {
        let uuids: [UInt16] = [0xFCD2, 0x180F, 0x2A19, 0x1809, 0x2A1C, 0x2A6E, 0x2A6F, 0x2A6D, 0xFEAA]
        await propertyCheck(count: 500, input: Gen.int(in: 0...(uuids.count - 1)), Gen.uint8().array(of: 0...30)) { index, bytes in
            let decoding = AdvertisementDecoderRegistry.standard.decode(Self.advertisement([Self.serviceData(uuids[index], bytes)]))
            #expect(decoding.readings.count + decoding.failures.count >= 0)
        }
    }
}
