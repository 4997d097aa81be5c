import Foundation
import Harald
import HaraldFleet
import HaraldGateway
import HaraldMQTT
import HaraldMQTTTestSupport
import HaraldSimulator
import Testing

/// Two gateways on the simulator's radio, each its own world on one virtual clock, hearing the
/// same thermometer at different strengths, and a fleet view reading both through the loopback
/// broker: the gateways and the view as `harald gateway` and `harald fleet` run them.
@Suite("A fleet of gateways on the simulator", .timeLimit(.minutes(2)))
struct FleetOnTheSimulatorTests {
    let sensor = BluetoothAddress("A4:C1:38:0B:0C:0D")!

    /// Takes events until the fleet says the sensor's owner is `gateway`; false if they ended first.
    func waitForOwner(_ gateway: String, _ events: inout AsyncStream<FleetEvent>.Iterator, of fleet: FleetView) async -> Bool {
        while let event = await events.next() {
            switch event {
            case .arrived(sensor, gateway), .ownerChanged(sensor, _, gateway): return true
            default: continue
            }
        }
        return false
    }

    @Test func aDeviceWalkingFromOneGatewayToAnotherChangesOwnerAndWalkingBackReclaimsIt() async throws {
        let broker = TestBroker()
        let port = try await broker.start()
        let driver = ClockDriver()
        let hallRoom = try Simulator(clock: driver.clock, devices: [virtualThermometer(sensor, rssi: -50)])
        let porchRoom = try Simulator(clock: driver.clock, devices: [virtualThermometer(sensor, rssi: -85)])
        func gateway(_ name: String, _ room: Simulator, discovery: Bool) -> Gateway {
            Gateway(
                central: Central(backend: room.backend, clock: driver.clock),
                broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""), topics: GatewayTopics(gateway: name),
                policy: GatewayPolicy(refreshInterval: .seconds(5), homeAssistantDiscovery: discovery))
        }
        let fleet = FleetView(broker: MQTTClient.Configuration(host: "127.0.0.1", port: port, clientIdentifier: ""), clock: driver.clock)
        let running = [
            Task { try await fleet.run() },
            Task { try await gateway("hall", hallRoom, discovery: true).run() },
            Task { try await gateway("porch", porchRoom, discovery: false).run() },
        ]

        var events = fleet.events.makeAsyncIterator()
        // Near the hall: the hall owns it (heard first, or taken: 35 dB stronger).
        #expect(await waitForOwner("hall", &events, of: fleet))
        // Walks to the porch: the porch takes it once its smoothed RSSI is more than 16 dB above.
        await hallRoom.setRSSI(-88, of: sensor)
        await porchRoom.setRSSI(-48, of: sensor)
        #expect(await waitForOwner("porch", &events, of: fleet))
        // And back: the hall, which lost it, reclaims it past the threshold and the deadband.
        await hallRoom.setRSSI(-47, of: sensor)
        await porchRoom.setRSSI(-86, of: sensor)
        #expect(await waitForOwner("hall", &events, of: fleet))
        let view = try #require(await fleet.device(sensor))
        #expect(view.rssi["hall"].map { $0 > -60 } == true)

        for task in running { task.cancel() }
        for task in running { _ = await task.result }
        driver.stop()
        try await broker.stop()
    }
}
