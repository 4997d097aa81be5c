import HaraldCore
import HaraldMQTT
import Testing

@testable import HaraldGateway

/// How the fleet reads one message from the broker, without a broker.
@Suite("The fleet reads gateways' messages liberally and never traps")
struct FleetInputTests {
    let topics = FleetTopics()

    private func read(_ topic: String, _ payload: String) -> FleetInput {
        FleetInput(MQTTMessage(topic: topic, payload: Array(payload.utf8), retain: false, qos: .atMostOnce), topics: topics)
    }

    @Test func aHaraldReportGivesTheGatewayTheAddressWithItsKindAndTheRSSI() {
        let input = read("home/hall/BTtoMQTT/C0112233445A", #"{"id":"C0:11:22:33:44:5A","address_type":"random","rssi":-61,"name":"Sensor"}"#)
        #expect(input == .sighting(FleetSighting(gateway: "hall", addressValue: 0xC011_2233_445A, kind: .random, rssi: -61)))
    }

    @Test func keysInAnyCaseAndAnRSSIWrittenAsTextAreRead() {
        let input = read("home/hall/BTtoMQTT/C0112233445A", #"{"ID":"c0:11:22:33:44:5a","RSSI":"-61.5"}"#)
        #expect(input == .sighting(FleetSighting(gateway: "hall", addressValue: 0xC011_2233_445A, kind: nil, rssi: -61.5)))
    }

    @Test func aReportWhoseIdIsNotAnAddressTakesTheTopicsAddress() {
        let input = read("home/hall/BTtoMQTT/C0112233445A", #"{"id":"beacon-7","rssi":-70}"#)
        #expect(input == .sighting(FleetSighting(gateway: "hall", addressValue: 0xC011_2233_445A, kind: nil, rssi: -70)))
    }

    @Test(arguments: [#"{"id":"C0:11:22:33:44:5A"}"#, #"{"rssi":null}"#, #"{"rssi":true}"#, #"{"rssi":127}"#, #"{"rssi":-300}"#, #"{"rssi":"loud"}"#])
    func aReportWithoutAPlausibleRSSIIsCountedApart(_ payload: String) {
        #expect(read("home/hall/BTtoMQTT/C0112233445A", payload) == .withoutRSSI(gateway: "hall"))
    }

    @Test(arguments: ["", "not json", "[1,2]", "-60", #"{"rssi":-60"#, "\u{FF}\u{FE}"])
    func aPayloadThatIsNotAJSONObjectIsMalformedOrACleared(_ payload: String) {
        let input = read("home/hall/BTtoMQTT/C0112233445A", payload)
        #expect(input == (payload.isEmpty ? .cleared : .malformed))
    }

    @Test func availabilityIsReadInAnyCaseWithSpaces() {
        #expect(read("home/hall/LWT", " Online\n") == .availability(gateway: "hall", online: true))
        #expect(read("home/hall/LWT", "offline") == .availability(gateway: "hall", online: false))
        #expect(read("home/hall/LWT", "sleepy") == .malformed)
    }

    @Test func messagesUnderTheFleetsOwnNameAreItsOwn() {
        #expect(read("home/fleet/LWT", "online") == .own)
        #expect(read("home/fleet/BTtoMQTT/C0112233445A", #"{"rssi":-60}"#) == .own)
    }
}
