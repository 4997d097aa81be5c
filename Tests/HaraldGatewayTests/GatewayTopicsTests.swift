import HaraldCodec
import HaraldCore
import HaraldGateway
import HaraldProfiles
import Testing

@Suite("Gateway topics follow Theengs' layout")
struct GatewayTopicsTests {
    let topics = GatewayTopics(gateway: "hall")
    let address = BluetoothAddress("C0:11:22:33:44:5A", kind: .random)!

    @Test func aDevicesTopicIsItsAddressInCapitalsWithoutColonsUnderBTtoMQTT() {
        #expect(topics.device(BluetoothAddress("a4:c1:38:0b:0c:0d")!) == "home/hall/BTtoMQTT/A4C1380B0C0D")
    }

    @Test func theAvailabilityTopicIsLWTUnderTheGatewaysName() {
        #expect(topics.availability == "home/hall/LWT")
    }

    @Test func discoveryConfigsGoUnderTheDevicesNodeAndTheValuesKey() {
        #expect(topics.discovery(address, key: "temperature", component: "sensor") == "homeassistant/sensor/harald_C0112233445A/temperature/config")
    }

    @Test func aDeviceTopicParsesBackToItsGatewayAndAddress() throws {
        let parsed = try #require(GatewayTopics.parseDevice("home/hall/BTtoMQTT/C0112233445A"))
        #expect(parsed.gateway == "hall")
        #expect(parsed.address == "C0112233445A")
    }

    @Test(arguments: [
        "home/hall/BTtoMQTT", "home//BTtoMQTT/C0112233445A", "home/hall/BTtoMQTT/C0112233445", "home/hall/BTtoMQTT/C0112233445G",
        "office/hall/BTtoMQTT/C0112233445A", "home/hall/BTtoMQTT/C0112233445A/extra", "home/hall/LWT",
    ])
    func topicsThatAreNotDeviceTopicsParseToNothing(_ topic: String) {
        #expect(GatewayTopics.parseDevice(topic) == nil)
    }

    @Test func anAvailabilityTopicParsesBackToItsGateway() {
        #expect(GatewayTopics.parseAvailability("home/hall/LWT") == "hall")
        #expect(GatewayTopics.parseAvailability("home/hall/BTtoMQTT/C0112233445A") == nil)
        #expect(GatewayTopics.parseAvailability("home//LWT") == nil)
    }
}

@Suite("Gateway polls")
struct GatewayPollTests {
    @Test func aPollSpecIsTheAddressTheUUIDAndTheSeconds() throws {
        let poll = try #require(GatewayPoll("C0:00:00:00:00:01:2A19:60"))
        #expect(poll.device == BluetoothAddress("C0:00:00:00:00:01"))
        #expect(poll.characteristic == BluetoothUUID(0x2A19))
        #expect(poll.interval == .seconds(60))
    }

    @Test(arguments: [
        "C0:00:00:00:00:01:2A19", "C0:00:00:00:00:2A19:60", "C0:00:00:00:00:01:2A19:0", "C0:00:00:00:00:01:XYZ:60",
        "C0:00:00:00:00:01:2A19:nan", "C0:00:00:00:00:01:2A19:60:1",
    ])
    func aMalformedPollSpecIsRefused(_ text: String) {
        #expect(GatewayPoll(text) == nil)
    }

    @Test func aPolledValueIsPublishedUnderTheCharacteristicsNameInSnakeCase() {
        let poll = GatewayPoll(device: .zero, characteristic: BluetoothUUID(0x2A19), interval: .seconds(60))
        #expect(poll.key(in: .standard) == "battery_level")
        #expect(poll.key(in: CharacteristicRegistry()) == "gatt_2a19")
    }
}
