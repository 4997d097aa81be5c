import Foundation
import Harald
import HaraldAdvertisements
import HaraldFleet
import HaraldGateway
import Testing

/// A BTHome v2 advertisement (unencrypted): temperature in hundredths of °C, battery in %.
func bthomeAdvertisement(
    from address: BluetoothAddress, temperature: Int16 = 2500, battery: UInt8 = 97, rssi: Int8 = -60, name: String? = nil
) -> Advertisement {
    let t = UInt16(bitPattern: temperature)
    var structures = [
        AdvertisingData.Structure(
            type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x02, UInt8(t & 0xFF), UInt8(t >> 8), 0x01, battery])
    ]
    if let name { structures.append(AdvertisingData.Structure(type: .completeLocalName, data: Array(name.utf8))) }
    return Advertisement(
        peripheral: PeripheralIdentifier(address: address), rssi: RSSI(dBm: rssi), isConnectable: false, data: AdvertisingData(structures: structures))
}

/// The JSON object of a message's payload.
func jsonObject(_ message: GatewayMessage) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
}

/// The publishing rules of one gateway, fed advertisements and times by hand.
@Suite("Device reporter")
struct DeviceReporterTests {
    let sensor = BluetoothAddress("A4:C1:38:0B:0C:0D")!
    let topics = GatewayTopics(gateway: "hall")

    func reporter(_ policy: GatewayPolicy = GatewayPolicy()) -> DeviceReporter {
        DeviceReporter(topics: topics, policy: policy)
    }

    func reports(_ messages: [GatewayMessage]) -> [GatewayMessage] { messages.filter { $0.kind == .report } }

    @Test func aDeviceHeardForTheFirstTimeIsReportedAtOnceWithItsDecodedValuesAndUnits() throws {
        var reporter = reporter()
        let messages = reports(reporter.receive(bthomeAdvertisement(from: sensor, name: "Kitchen"), at: .zero))
        let report = try #require(messages.first)
        #expect(messages.count == 1)
        #expect(report.topic == "home/hall/BTtoMQTT/A4C1380B0C0D")
        #expect(report.retain == false)
        let object = try jsonObject(report)
        #expect(object["id"] as? String == "A4:C1:38:0B:0C:0D")
        #expect(object["address_type"] as? String == "public")
        #expect(object["name"] as? String == "Kitchen")
        #expect(object["rssi"] as? Int == -60)
        #expect(object["gateway"] as? String == "hall")
        #expect(object["temperature"] as? Double == 25)
        #expect(object["battery"] as? Int == 97)
        #expect(object["units"] as? [String: String] == ["temperature": "°C", "battery": "%"])
    }

    @Test func theSameAdvertisementAgainPublishesNothing() {
        var reporter = reporter()
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        #expect(reporter.receive(bthomeAdvertisement(from: sensor), at: .seconds(2)).isEmpty)
    }

    @Test func aChangedValueIsReportedOnceTheMinimumIntervalHasPassed() {
        var reporter = reporter()
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        #expect(reports(reporter.receive(bthomeAdvertisement(from: sensor, temperature: 2510), at: .seconds(2))).count == 1)
    }

    @Test func aChangeHeardWithinTheMinimumIntervalIsHeldAndTheLatestGoesOutAtTheNextTick() throws {
        var reporter = reporter(GatewayPolicy(minimumInterval: .seconds(1)))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        #expect(reporter.receive(bthomeAdvertisement(from: sensor, temperature: 2510), at: .milliseconds(300)).isEmpty)
        #expect(reporter.receive(bthomeAdvertisement(from: sensor, temperature: 2520), at: .milliseconds(600)).isEmpty)
        #expect(reporter.tick(at: .milliseconds(900)).isEmpty)
        let held = reports(reporter.tick(at: .milliseconds(1_000)))
        #expect(held.count == 1)
        #expect(try jsonObject(try #require(held.first))["temperature"] as? Double == 25.2)
    }

    @Test func anRSSISwingSmallerThanTheThresholdIsNoChangeAndALargerOneIs() {
        var reporter = reporter(GatewayPolicy(rssiChange: 5))
        _ = reporter.receive(bthomeAdvertisement(from: sensor, rssi: -60), at: .zero)
        #expect(reporter.receive(bthomeAdvertisement(from: sensor, rssi: -64), at: .seconds(2)).isEmpty)
        #expect(reports(reporter.receive(bthomeAdvertisement(from: sensor, rssi: -65), at: .seconds(3))).count == 1)
    }

    @Test func aDeviceStillHeardIsReportedAgainEveryRefreshInterval() {
        var reporter = reporter(GatewayPolicy(refreshInterval: .seconds(30)))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .seconds(20))
        #expect(reporter.tick(at: .seconds(29)).isEmpty)
        #expect(reports(reporter.tick(at: .seconds(30))).count == 1)
    }

    @Test func aDeviceNotHeardSinceItsLastReportIsNotRefreshed() {
        var reporter = reporter(GatewayPolicy(refreshInterval: .seconds(30)))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        #expect(reporter.tick(at: .seconds(31)).isEmpty)
    }

    @Test func aDeviceNotHeardWithinTheStaleTimeIsForgotten() {
        var reporter = reporter(GatewayPolicy(staleTime: .seconds(195)))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        _ = reporter.tick(at: .seconds(194))
        #expect(reporter.deviceCount == 1)
        _ = reporter.tick(at: .seconds(195))
        #expect(reporter.deviceCount == 0)
    }

    @Test func theDeviceTableNeverHoldsMoreThanTheMaximumAndForgetsTheLongestUnheardFirst() {
        var reporter = reporter(GatewayPolicy(maximumDevices: 16))
        for index in 0..<100 {
            let address = BluetoothAddress(value: 0xC000_0000_0000 + UInt64(index), kind: .random)!
            _ = reporter.receive(bthomeAdvertisement(from: address), at: .milliseconds(index))
            #expect(reporter.deviceCount <= 16)
        }
        #expect(reporter.report(of: BluetoothAddress(value: 0xC000_0000_0000 + 99, kind: .random)!) != nil)
        #expect(reporter.report(of: BluetoothAddress(value: 0xC000_0000_0000, kind: .random)!) == nil)
        #expect(reporter.evictedCount == 100 - reporter.deviceCount)
    }

    @Test func aNameFromTheScanResponseJoinsTheValuesOfTheAdvertisement() throws {
        var reporter = reporter()
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        let named = Advertisement(
            peripheral: PeripheralIdentifier(address: sensor), rssi: -60, isConnectable: false,
            data: AdvertisingData(structures: [.init(type: .completeLocalName, data: Array("Kitchen".utf8))]))
        let report = try #require(reports(reporter.receive(named, at: .seconds(2))).first)
        let object = try jsonObject(report)
        #expect(object["name"] as? String == "Kitchen")
        #expect(object["temperature"] as? Double == 25)
    }

    @Test func anAdvertisementWithoutADeviceAddressIsCountedAndNotPublished() {
        var reporter = reporter()
        let unaddressed = Advertisement(
            peripheral: PeripheralIdentifier(uuid: UUID()), rssi: -60, isConnectable: true, data: AdvertisingData(structures: []))
        #expect(reporter.receive(unaddressed, at: .zero).isEmpty)
        #expect(reporter.unaddressedCount == 1)
    }

    @Test func aResolvedPrivateAddressIsReportedUnderTheIdentityWithTheAddressHeard() throws {
        var reporter = reporter()
        var advertisement = bthomeAdvertisement(from: sensor)
        advertisement.resolvedPrivateAddress = BluetoothAddress("4A:11:22:33:44:55", kind: .random)
        let report = try #require(reports(reporter.receive(advertisement, at: .zero)).first)
        #expect(report.topic == "home/hall/BTtoMQTT/A4C1380B0C0D")
        #expect(try jsonObject(report)["rpa"] as? String == "4A:11:22:33:44:55")
    }
}

/// Home Assistant discovery: one retained config per decoded value.
@Suite("Home Assistant discovery")
struct HomeAssistantDiscoveryTests {
    let sensor = BluetoothAddress("A4:C1:38:0B:0C:0D")!

    @Test func eachDecodedValueGetsOneRetainedConfigBeforeTheFirstReport() throws {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        let messages = reporter.receive(bthomeAdvertisement(from: sensor, name: "Kitchen"), at: .zero)
        #expect(messages.map(\.kind) == [.discovery, .discovery, .report])
        #expect(messages.prefix(2).allSatisfy { $0.retain })
        #expect(
            messages.prefix(2).map(\.topic) == [
                "homeassistant/sensor/harald_A4C1380B0C0D/battery/config", "homeassistant/sensor/harald_A4C1380B0C0D/temperature/config",
            ])
        let config = try jsonObject(messages[1])
        #expect(config["unique_id"] as? String == "harald_A4C1380B0C0D_temperature")
        #expect(config["state_topic"] as? String == "home/hall/BTtoMQTT/A4C1380B0C0D")
        #expect(config["value_template"] as? String == "{{ value_json['temperature'] }}")
        #expect(config["unit_of_measurement"] as? String == "°C")
        #expect(config["device_class"] as? String == "temperature")
        #expect(config["availability_topic"] as? String == "home/hall/LWT")
        #expect(config["expire_after"] as? Int == 195)
        let device = try #require(config["device"] as? [String: Any])
        #expect(device["name"] as? String == "Kitchen")
        #expect(device["identifiers"] as? [String] == ["harald_A4C1380B0C0D"])
    }

    @Test func configsAreNotSentAgainWithLaterReports() {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        #expect(reporter.receive(bthomeAdvertisement(from: sensor, temperature: 2600), at: .seconds(2)).map(\.kind) == [.report])
    }

    @Test func afterRediscoverEveryConfigGoesAgainWithTheNextReport() {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        reporter.rediscover()
        #expect(reporter.receive(bthomeAdvertisement(from: sensor, temperature: 2600), at: .seconds(2)).map(\.kind) == [.discovery, .discovery, .report])
    }

    @Test func aNewNameSendsTheConfigsAgainNamingTheDevice() throws {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        _ = reporter.receive(bthomeAdvertisement(from: sensor), at: .zero)
        let messages = reporter.receive(bthomeAdvertisement(from: sensor, name: "Kitchen"), at: .seconds(2))
        #expect(messages.map(\.kind) == [.discovery, .discovery, .report])
        let device = try #require(try jsonObject(messages[0])["device"] as? [String: Any])
        #expect(device["name"] as? String == "Kitchen")
    }

    @Test func discoveryCanBeTurnedOff() {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"), policy: GatewayPolicy(homeAssistantDiscovery: false))
        #expect(reporter.receive(bthomeAdvertisement(from: sensor), at: .zero).map(\.kind) == [.report])
    }

    @Test func anOnOffValueIsABinarySensorWhoseTemplateSaysOnOrOff() throws {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        // BTHome object 0x1A: door, 1 = open.
        let door = Advertisement(
            peripheral: PeripheralIdentifier(address: sensor), rssi: -60, isConnectable: false,
            data: AdvertisingData(structures: [.init(type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x1A, 0x01])]))
        let messages = reporter.receive(door, at: .zero)
        let config = try #require(messages.first { $0.kind == .discovery })
        #expect(config.topic == "homeassistant/binary_sensor/harald_A4C1380B0C0D/door/config")
        #expect(try jsonObject(config)["value_template"] as? String == "{{ 'ON' if value_json['door'] else 'OFF' }}")
        #expect(try jsonObject(try #require(messages.last))["door"] as? Bool == true)
    }
}

/// The gateway's bounds at their defaults (RELIABILITY.md, "Bounded resources").
@Suite("Gateway default limits")
struct GatewayDefaultLimitTests {
    @Test func aGatewayRemembersAtMost4096DevicesByDefault() {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        for index in 0..<4_097 {
            let address = BluetoothAddress(value: 0xC000_0000_0000 + UInt64(index), kind: .random)!
            _ = reporter.receive(bthomeAdvertisement(from: address), at: .milliseconds(index))
            if index == 4_095 { #expect(reporter.deviceCount == 4_096) }
        }
        #expect(reporter.deviceCount <= 4_096)
        #expect(reporter.evictedCount == 512)
    }
}

/// The fleet view's bounds at their defaults (RELIABILITY.md, "Bounded resources").
@Suite("Fleet view default limits")
struct FleetViewDefaultLimitTests {
    @Test func aFleetViewKnowsAtMost1024GatewaysByDefault() {
        #expect(FleetPublishingPolicy().maximumGateways == 1_024)
    }

    @Test func aFleetViewHoldsTheNewest1024EventsForASlowReader() {
        #expect(FleetView.eventBufferLimit == 1_024)
    }
}

@Suite("Device reporter: BTHome events")
struct DeviceReporterEventTests {
    let button = BluetoothAddress("A4:C1:38:0B:0C:0E")!

    /// BTHome v2: packet id (0x00) then a button event (0x3A, 0x01 = press).
    func press(packetID: UInt8) -> Advertisement {
        Advertisement(
            peripheral: PeripheralIdentifier(address: button), rssi: -60, isConnectable: false,
            data: AdvertisingData(structures: [.init(type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x00, packetID, 0x3A, 0x01])]))
    }

    @Test func aSecondPressWithTheSameEventIsANewReportBecauseItsPacketIDChanged() {
        var reporter = DeviceReporter(topics: GatewayTopics(gateway: "hall"))
        _ = reporter.receive(press(packetID: 1), at: .zero)
        #expect(reporter.receive(press(packetID: 1), at: .seconds(2)).isEmpty, "the same packet again is no change")
        #expect(reporter.receive(press(packetID: 2), at: .seconds(4)).contains { $0.kind == .report })
    }
}
