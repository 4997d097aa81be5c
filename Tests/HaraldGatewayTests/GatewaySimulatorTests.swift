import Foundation
import Harald
import HaraldGateway
import HaraldMQTT
import HaraldMQTTTestSupport
import HaraldSimulator
import Testing

/// Virtual time for a gateway that talks to a real (loopback) broker: a task moves the clock
/// forward in small steps while the test waits for what the broker saw. Nothing is asserted
/// about real time; the steps only let the scan and the gateway's ticks run.
final class ClockDriver: Sendable {
    let clock = VirtualClock()
    private let task: Task<Void, Never>

    init(step: Duration = .milliseconds(100)) {
        let clock = clock
        task = Task {
            while !Task.isCancelled {
                clock.advance(by: step)
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    /// Stops moving time and ends the clock (its sleepers are cancelled).
    func stop() {
        task.cancel()
        clock.end()
    }
}

/// The broker's view of what clients published.
extension TestBroker.Event {
    var publish: MQTTPublish? {
        if case let .published(publish) = self { return publish }
        return nil
    }
}

/// A BTHome thermometer in the simulator: temperature 25.00 °C, battery 97 %.
func virtualThermometer(_ address: BluetoothAddress, name: String = "Kitchen", rssi: RSSI = -55) -> VirtualPeripheral {
    VirtualPeripheral(
        address: address,
        advertisingData: AdvertisingData(structures: [
            .init(type: .serviceData16BitUUID, data: [0xD2, 0xFC, 0x40, 0x02, 0xC4, 0x09, 0x01, 0x61]),
            .init(type: .completeLocalName, data: Array(name.utf8)),
        ]),
        isConnectable: false, rssi: rssi, advertisingInterval: .seconds(1)
    ) { _ in PeripheralBehaviour(services: []) }
}

/// `harald gateway`'s library end to end: the simulator's radio in, the loopback broker out.
@Suite("Gateway on the simulator", .timeLimit(.minutes(2)))
struct GatewaySimulatorTests {
    let sensor = BluetoothAddress("A4:C1:38:0B:0C:0D")!

    @Test func aGatewayPublishesOnlineDiscoveryAndTheDecodedReportOfAVirtualSensor() async throws {
        let broker = TestBroker()
        let port = try await broker.start()
        let driver = ClockDriver()
        let simulator = try Simulator(clock: driver.clock, devices: [virtualThermometer(sensor)])
        let central = Central(backend: simulator.backend, clock: driver.clock)
        let gateway = Gateway(
            central: central, broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""),
            topics: GatewayTopics(gateway: "hall"))
        let run = Task { try await gateway.run() }

        let reportTopic = "home/hall/BTtoMQTT/A4C1380B0C0D"
        await broker.waitUntil { events in events.contains { $0.publish?.topic == reportTopic } }
        let publishes = broker.events.compactMap(\.publish)
        let online = try #require(publishes.first)
        #expect(online.topic == "home/hall/LWT")
        #expect(online.payload == Array("online".utf8))
        #expect(online.retain)
        let configs = publishes.filter { $0.topic.hasPrefix("homeassistant/") }
        #expect(
            configs.map(\.topic).sorted() == [
                "homeassistant/sensor/harald_A4C1380B0C0D/battery/config", "homeassistant/sensor/harald_A4C1380B0C0D/temperature/config",
            ])
        #expect(configs.allSatisfy { $0.retain })
        let report = try #require(publishes.first { $0.topic == reportTopic })
        let object = try #require(JSONSerialization.jsonObject(with: Data(report.payload)) as? [String: Any])
        #expect(object["temperature"] as? Double == 25)
        #expect(object["name"] as? String == "Kitchen")
        #expect(object["rssi"] as? Int == -55)

        run.cancel()
        _ = await run.result
        driver.stop()
        let last = try #require(broker.events.compactMap(\.publish).last)
        #expect(last.topic == "home/hall/LWT")
        #expect(last.payload == Array("offline".utf8))
        #expect(last.retain)
        try await broker.stop()
    }

    @Test func aGatewayClientIdentifierIsItsNameAndItsWillIsARetainedOffline() async throws {
        let broker = TestBroker()
        let port = try await broker.start()
        let driver = ClockDriver()
        let simulator = try Simulator(clock: driver.clock, devices: [])
        let gateway = Gateway(
            central: Central(backend: simulator.backend, clock: driver.clock),
            broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""), topics: GatewayTopics(gateway: "porch"))
        let configuration = await gateway.client.configuration
        #expect(configuration.clientIdentifier == "porch")
        #expect(configuration.will == MQTTLastWill(topic: "home/porch/LWT", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true))
        #expect(configuration.birth == MQTTLastWill(topic: "home/porch/LWT", payload: Array("online".utf8), qos: .atLeastOnce, retain: true))
        driver.stop()
        try await broker.stop()
    }

    @Test func homeAssistantsOnlineStatusSendsTheDiscoveryConfigsAgain() async throws {
        let broker = TestBroker()
        let port = try await broker.start()
        let driver = ClockDriver()
        let simulator = try Simulator(clock: driver.clock, devices: [virtualThermometer(sensor)])
        let gateway = Gateway(
            central: Central(backend: simulator.backend, clock: driver.clock),
            broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""), topics: GatewayTopics(gateway: "hall"))
        let run = Task { try await gateway.run() }
        let configTopic = "homeassistant/sensor/harald_A4C1380B0C0D/temperature/config"
        await broker.waitUntil { events in events.contains { $0.publish?.topic == configTopic } }

        let homeAssistant = MQTTClient(configuration: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: "ha"))
        try await homeAssistant.connect()
        try await homeAssistant.publish(topic: "homeassistant/status", payload: Array("online".utf8), qos: .atLeastOnce)
        await broker.waitUntil { events in events.compactMap(\.publish).filter { $0.topic == configTopic }.count >= 2 }

        await homeAssistant.disconnect()
        run.cancel()
        _ = await run.result
        driver.stop()
        try await broker.stop()
    }

    @Test func aPolledCharacteristicJoinsTheDevicesReportUnderItsName() async throws {
        let broker = TestBroker()
        let port = try await broker.start()
        let driver = ClockDriver()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: driver.clock, devices: [strap])
        let gateway = Gateway(
            central: Central(backend: simulator.backend, clock: driver.clock),
            broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""), topics: GatewayTopics(gateway: "hall"),
            polls: [GatewayPoll(device: strap.address.with(kind: .public), characteristic: BluetoothUUID(0x2A19), interval: .seconds(60))])
        let run = Task { try await gateway.run() }
        let topic = "home/hall/BTtoMQTT/C0FFEE000001"
        await broker.waitUntil { events in
            events.compactMap(\.publish).contains { $0.topic == topic && String(decoding: $0.payload, as: UTF8.self).contains("battery_level") }
        }
        let report = try #require(broker.events.compactMap(\.publish).last { $0.topic == topic })
        let object = try #require(JSONSerialization.jsonObject(with: Data(report.payload)) as? [String: Any])
        #expect(object["battery_level"] as? Int == 87, "\(object)")
        #expect(object["name"] as? String == "Harald HR")
        #expect(await gateway.currentStatistics.polls >= 1)
        run.cancel()
        _ = await run.result
        driver.stop()
        try await broker.stop()
    }
}
