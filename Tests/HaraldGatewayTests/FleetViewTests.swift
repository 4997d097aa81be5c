import HaraldCore
import HaraldFleet
import HaraldGateway
import HaraldMQTT
import HaraldTestSupport
import Testing

/// The fleet view end to end on the loopback broker: gateways publish reports by hand in
/// Theengs' layout, the fleet's time runs on a manual clock, and every expectation reads what
/// the broker saw or what the fleet says of a device after it read the messages.
@Suite("A fleet view arbitrates between gateways through the broker", .timeLimit(.minutes(2)))
struct FleetViewTests {
    let device = "C0:11:22:33:44:5A"
    let address = BluetoothAddress("C0:11:22:33:44:5A", kind: .public)!
    let view = "home/fleet/C0112233445A"

    /// Runs `body` on a started harness, stops it, and fails instead of hanging when a
    /// publication or a message never comes (each wait is on an event, not a timer).
    private func withFleet(
        policy: FleetPolicy = FleetPolicy(smoothingFactor: 1), publishing: FleetPublishingPolicy = FleetPublishingPolicy(),
        _ body: @escaping @Sendable (FleetHarness) async throws -> Void
    ) async throws {
        try await withHangGuard(seconds: 30) {
            let harness = try await FleetHarness(policy: policy, publishing: publishing)
            do { try await body(harness) } catch {
                try? await harness.stop()
                throw error
            }
            try await harness.stop()
        }
    }

    @Test func theFirstGatewayToReportADeviceOwnsItAndItsViewIsPublishedRetained() async throws {
        try await withFleet { harness in
            try await harness.report("hall", device, rssi: -70)
            await harness.waitForPublication(on: view) { owner($0) == "hall" }
            let publication = try #require(harness.published(on: view).last)
            #expect(publication.retain)
            #expect(publication.qos == .atLeastOnce)
            let json = try #require(jsonObject(publication.payload))
            #expect(json["id"] as? String == device)
            #expect(json["address_type"] as? String == "public")
            #expect(json["present"] as? Bool == true)
            #expect((json["rssi"] as? [String: Any])?["hall"] as? Double == -70)
        }
    }

    @Test func theOwnerSwitchesWhenAnotherGatewayIsMoreThan16dBStrongerAndNotAtExactly16() async throws {
        try await withFleet { harness in
            try await harness.report("hall", device, rssi: -80)
            try await harness.report("kitchen", device, rssi: -64)
            #expect(await harness.fleet.device(address)?.owner == "hall")
            try await harness.report("kitchen", device, rssi: -63)
            await harness.waitForPublication(on: view) { owner($0) == "kitchen" }
            #expect(await harness.fleet.device(address)?.owner == "kitchen")
        }
    }

    @Test func aGatewayThatLostADeviceNeedsTheDeadbandOnTopOfTheThresholdToReclaimIt() async throws {
        try await withFleet { harness in
            try await harness.report("hall", device, rssi: -80)
            try await harness.report("kitchen", device, rssi: -60)
            #expect(await harness.fleet.device(address)?.owner == "kitchen")
            try await harness.report("hall", device, rssi: -43)  // 17 dB above: enough for a newcomer, not for hall
            #expect(await harness.fleet.device(address)?.owner == "kitchen")
            try await harness.report("hall", device, rssi: -37)  // 23 dB above: past 16 + 6
            await harness.waitForPublication(on: view) { owner($0) == "hall" }
            #expect(await harness.fleet.device(address)?.owner == "hall")
        }
    }

    @Test func aDeviceNoGatewayHeardWithinTheStaleTimeGoesAwayLiveAndItsRetainedViewIsCleared() async throws {
        try await withFleet(policy: FleetPolicy(smoothingFactor: 1, unknownIntervalStaleTime: .seconds(60))) { harness in
            try await harness.report("hall", device, rssi: -70)
            await harness.waitForPublication(on: view) { owner($0) == "hall" }
            await harness.advance(by: .seconds(60))
            #expect(await harness.fleet.device(address) != nil)
            await harness.advance(by: .seconds(1))
            await harness.waitForPublication(on: view) { $0.retain && $0.payload.isEmpty }
            let away = harness.published(on: view).suffix(2)
            #expect(away.map(\.retain) == [false, true])
            #expect(jsonObject(away.first?.payload ?? [])?["present"] as? Bool == false)
            #expect(await harness.fleet.device(address) == nil)
        }
    }

    @Test func aGatewaysLastWillHandsItsDevicesToTheNextGatewayThatHearsThem() async throws {
        try await withFleet { harness in
            try await harness.report("hall", device, rssi: -60)
            try await harness.report("kitchen", device, rssi: -75)
            try await harness.kill("hall")
            await harness.waitForPublication(on: view) { owner($0) == "kitchen" }
            await harness.waitForPublication(on: "home/fleet/gateways") { jsonObject($0.payload)?["hall"] as? String == "offline" }
            let gateways = try #require(harness.published(on: "home/fleet/gateways").last)
            #expect(gateways.retain)
            #expect(jsonObject(gateways.payload)?["kitchen"] as? String == "online")
            #expect(await harness.fleet.gateways == ["hall": false, "kitchen": true])
        }
    }

    @Test func reportsFromAGatewayThatIsOfflineDoNotCount() async throws {
        try await withFleet { harness in
            try await harness.publish("hall", topic: "home/hall/LWT", payload: "offline")
            try await harness.report("hall", device, rssi: -60)
            #expect(await harness.fleet.device(address) == nil)
        }
    }

    @Test func malformedReportsAndTopicsAreCountedAndSkipped() async throws {
        try await withFleet { harness in
            try await harness.publish("hall", topic: "home/hall/BTtoMQTT/C0112233445A", payload: "not json")
            try await harness.publish("hall", topic: "home/hall/BTtoMQTT/C0112233445A", payload: "[1, 2]")
            try await harness.publish("hall", topic: "home/hall/BTtoMQTT/NOTANADDRESS", payload: #"{"id":"C0:11:22:33:44:5A","rssi":-60}"#)
            try await harness.publish("hall", topic: "home/hall/LWT", payload: "maybe")
            try await harness.publish("hall", topic: "home/hall/BTtoMQTT/C0112233445A", payload: #"{"id":"C0:11:22:33:44:5A","rssi":"loud"}"#)
            try await harness.report("hall", device, rssi: -60)
            let statistics = await harness.fleet.statistics
            #expect(statistics.malformed == 4)
            #expect(statistics.reportsWithoutRSSI == 1)
            #expect(statistics.sightings == 1)
            #expect(await harness.fleet.device(address)?.owner == "hall")
        }
    }

    @Test func aTheengsReportWithoutAddressTypeAndInLowercaseIsReadAsAPublicAddress() async throws {
        try await withFleet { harness in
            try await harness.publish(
                "theengs", topic: "home/theengs/BTtoMQTT/C0112233445A", payload: #"{"id":"c0:11:22:33:44:5a","rssi":-71,"brand":"Xiaomi","tempc":21.4}"#)
            await harness.waitForPublication(on: view) { owner($0) == "theengs" }
            #expect(await harness.fleet.device(address)?.rssi == ["theengs": -71])
        }
    }

    @Test func theFleetsOwnAvailabilityIsNotTakenForAGateway() async throws {
        try await withFleet { harness in
            try await harness.publish("other", topic: "home/fleet/LWT", payload: "offline")
            let statistics = await harness.fleet.statistics
            #expect(statistics.own == 2)  // its own retained `online`, then this
            #expect(await harness.fleet.gateways["fleet"] == nil)
        }
    }

    @Test func theFleetAnnouncesItselfOnlineRetainedAndOfflineWhenItStops() async throws {
        try await withFleet { harness in
            try await harness.stop()
            let availability = harness.published(on: "home/fleet/LWT")
            #expect(availability.map { String(decoding: $0.payload, as: UTF8.self) } == ["online", "offline"])
            #expect(availability.allSatisfy { $0.retain })
        }
    }

    @Test func aGatewayPastTheLimitIsSkippedAndCounted() async throws {
        try await withFleet(publishing: FleetPublishingPolicy(maximumGateways: 1)) { harness in
            try await harness.report("hall", device, rssi: -60)
            try await harness.report("kitchen", device, rssi: -30)
            #expect(await harness.fleet.gateways == ["hall": true])
            #expect(await harness.fleet.statistics.refusedGateways == 2)  // kitchen's `online`, then its report
            #expect(await harness.fleet.device(address)?.owner == "hall")
        }
    }

    @Test func anRSSIChangeIsRepublishedNoSoonerThanTheUpdateInterval() async throws {
        try await withFleet(publishing: FleetPublishingPolicy(rssiUpdateInterval: .seconds(10))) { harness in
            try await harness.report("hall", device, rssi: -70)
            await harness.waitForPublication(on: view) { owner($0) == "hall" }
            try await harness.report("hall", device, rssi: -60)
            await harness.advance(by: .seconds(9))
            #expect(harness.published(on: view).count == 1)
            await harness.advance(by: .seconds(1))
            await harness.waitForPublication(on: view) { (jsonObject($0.payload)?["rssi"] as? [String: Any])?["hall"] as? Double == -60 }
            #expect(harness.published(on: view).count == 2)
        }
    }
}
