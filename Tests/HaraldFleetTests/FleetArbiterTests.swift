import HaraldCore
import HaraldFleet
import Testing

/// The fleet's rules, one per test: ownership with the switch threshold and reclaim deadband,
/// smoothing, stale devices, dead gateways, memory bounds. Times are plain durations (no clock).
@Suite("Fleet arbiter")
struct FleetArbiterTests {
    static let device = BluetoothAddress("AA:BB:CC:DD:EE:01")!
    static let other = BluetoothAddress("AA:BB:CC:DD:EE:02")!

    /// Without smoothing, so each reading is the gateway's RSSI (the rules read plainly).
    static let unsmoothed = FleetPolicy(smoothingFactor: 1)

    static func heard(_ gateway: String, _ rssi: Double, at seconds: Int = 0, _ device: BluetoothAddress = device, interval: Bool = false) -> FleetObservation {
        FleetObservation(gateway: gateway, device: device, rssi: rssi, time: .seconds(seconds), advertisingInterval: interval ? .seconds(1) : nil)
    }

    @Test func theFirstGatewayToHearADeviceOwnsIt() {
        var fleet = FleetArbiter()
        #expect(fleet.observe(Self.heard("hall", -80)) == [.arrived(Self.device, owner: "hall")])
        #expect(fleet.device(Self.device)?.owner == "hall")
    }

    @Test func theOwnerSwitchesWhenAChallengerIsMoreThan16dBStronger() {
        var fleet = FleetArbiter(policy: Self.unsmoothed)
        _ = fleet.observe(Self.heard("hall", -80))
        #expect(fleet.observe(Self.heard("kitchen", -63)) == [.ownerChanged(Self.device, from: "hall", to: "kitchen")])
        #expect(fleet.device(Self.device)?.owner == "kitchen")
    }

    @Test func theOwnerDoesNotSwitchAtExactly16dBOrLess() {
        var fleet = FleetArbiter(policy: Self.unsmoothed)
        _ = fleet.observe(Self.heard("hall", -80))
        #expect(fleet.observe(Self.heard("kitchen", -64)).isEmpty)
        #expect(fleet.observe(Self.heard("kitchen", -70)).isEmpty)
        #expect(fleet.device(Self.device)?.owner == "hall")
    }

    @Test func rssiIsSmoothedPerGatewayWithWeight0_3OnTheNewReading() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -90))
        _ = fleet.observe(Self.heard("hall", -80))
        #expect(fleet.device(Self.device)?.rssi["hall"] == 0.3 * -80 + 0.7 * -90)
    }

    @Test func aSingleStrongReadingDoesNotTakeTheDeviceOver() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -80))
        _ = fleet.observe(Self.heard("kitchen", -90))
        // 30 dB above the owner for one advertisement: smoothed, the kitchen is at −78 dBm.
        #expect(fleet.observe(Self.heard("kitchen", -50)).isEmpty)
        #expect(fleet.device(Self.device)?.owner == "hall")
    }

    @Test func aGatewayThatLostTheDeviceReclaimsItOnlyBeyondTheDeadband() {
        var fleet = FleetArbiter(policy: Self.unsmoothed)
        _ = fleet.observe(Self.heard("hall", -80))
        _ = fleet.observe(Self.heard("kitchen", -60))
        // The hall is now 20 dB stronger: past the threshold, within threshold + deadband (22 dB).
        #expect(fleet.observe(Self.heard("hall", -40)).isEmpty)
        #expect(fleet.observe(Self.heard("hall", -38)).isEmpty)
        #expect(fleet.observe(Self.heard("hall", -37)) == [.ownerChanged(Self.device, from: "kitchen", to: "hall")])
    }

    @Test func aGatewayThatNeverOwnedTheDevicePaysNoDeadband() {
        var fleet = FleetArbiter(policy: Self.unsmoothed)
        _ = fleet.observe(Self.heard("hall", -80))
        _ = fleet.observe(Self.heard("kitchen", -60))
        #expect(fleet.observe(Self.heard("garage", -43)) == [.ownerChanged(Self.device, from: "kitchen", to: "garage")])
    }

    @Test func aDeviceWithAnUnknownIntervalIsAwayAfter15MinutesUnheard() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -70, at: 0))
        #expect(fleet.expire(at: .seconds(900)).isEmpty)
        #expect(fleet.expire(at: .seconds(901)) == [.away(Self.device)])
        #expect(fleet.device(Self.device) == nil)
    }

    @Test func aDeviceWithAKnownIntervalIsAwayAfter195SecondsUnheard() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -70, at: 0, interval: true))
        #expect(fleet.expire(at: .seconds(195)).isEmpty)
        #expect(fleet.expire(at: .seconds(196)) == [.away(Self.device)])
    }

    @Test func aDeviceHeardAgainAfterItWentAwayArrivesAgain() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -70, at: 0, interval: true))
        _ = fleet.expire(at: .seconds(300))
        #expect(fleet.observe(Self.heard("kitchen", -75, at: 310)) == [.arrived(Self.device, owner: "kitchen")])
    }

    @Test func anOwnerThatStopsHearingTheDeviceLosesItToAGatewayThatStillDoes() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -60, at: 0, interval: true))
        _ = fleet.observe(Self.heard("kitchen", -85, at: 100, interval: true))
        #expect(fleet.expire(at: .seconds(200)) == [.ownerChanged(Self.device, from: "hall", to: "kitchen")])
        #expect(fleet.device(Self.device)?.rssi.keys.sorted() == ["kitchen"])
    }

    @Test func aChallengerTakesTheDeviceFromAnOwnerThatNoLongerHearsItWithoutAnRSSIContest() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -60, at: 0, interval: true))
        #expect(fleet.observe(Self.heard("kitchen", -90, at: 200, interval: true)) == [.ownerChanged(Self.device, from: "hall", to: "kitchen")])
    }

    @Test func aDeadGatewaysDevicesMoveToTheNextBestGateway() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -60))
        _ = fleet.observe(Self.heard("garage", -75))
        _ = fleet.observe(Self.heard("kitchen", -70))
        #expect(fleet.setGateway("hall", online: false) == [.gatewayOffline("hall"), .ownerChanged(Self.device, from: "hall", to: "kitchen")])
        #expect(fleet.device(Self.device)?.rssi.keys.sorted() == ["garage", "kitchen"])
    }

    @Test func aDeviceOnlyADeadGatewayHeardGoesAway() {
        var fleet = FleetArbiter()
        _ = fleet.observe(Self.heard("hall", -60))
        _ = fleet.observe(Self.heard("kitchen", -60, Self.other))
        #expect(fleet.setGateway("hall", online: false) == [.gatewayOffline("hall"), .away(Self.device)])
        #expect(fleet.devices.map(\.address) == [Self.other])
    }

    @Test func anOfflineGatewaysObservationsAreIgnoredUntilItIsOnlineAgain() {
        var fleet = FleetArbiter()
        _ = fleet.setGateway("hall", online: false)
        #expect(fleet.observe(Self.heard("hall", -60)).isEmpty)
        #expect(fleet.setGateway("hall", online: true) == [.gatewayOnline("hall")])
        #expect(fleet.observe(Self.heard("hall", -60)) == [.arrived(Self.device, owner: "hall")])
        #expect(fleet.setGateway("hall", online: true).isEmpty)
    }

    @Test func theDeviceLimitMakesTheDeviceHeardLongestAgoGoAway() {
        var fleet = FleetArbiter(policy: FleetPolicy(maximumDevices: 1))
        _ = fleet.observe(Self.heard("hall", -60, at: 0))
        #expect(fleet.observe(Self.heard("hall", -60, at: 1, Self.other)) == [.away(Self.device), .arrived(Self.other, owner: "hall")])
        #expect(fleet.devices.count == 1)
    }

    @Test func theFleetTracksAtMost10000DevicesByDefault() {
        var fleet = FleetArbiter()
        for index in 0..<10_000 {
            let address = BluetoothAddress(value: 0xC000_0000_0000 + UInt64(index), kind: .random)!
            _ = fleet.observe(FleetObservation(gateway: "hall", device: address, rssi: -60, time: .milliseconds(index)))
        }
        #expect(fleet.devices.count == 10_000)
        let newest = BluetoothAddress(value: 0xC000_0000_0000 + 10_000, kind: .random)!
        let events = fleet.observe(FleetObservation(gateway: "hall", device: newest, rssi: -60, time: .seconds(20)))
        #expect(events == [.away(BluetoothAddress(value: 0xC000_0000_0000, kind: .random)!), .arrived(newest, owner: "hall")])
        #expect(fleet.devices.count == 10_000)
    }

    @Test func readingsThatAreNotNumbersAreIgnored() {
        var fleet = FleetArbiter()
        #expect(fleet.observe(Self.heard("hall", .nan)).isEmpty)
        #expect(fleet.devices.isEmpty)
    }

    @Test func theDefaultsAreHabluetoothsConstants() {
        let policy = FleetPolicy()
        #expect(policy.switchThreshold == 16 && policy.reclaimDeadband == 6 && policy.smoothingFactor == 0.3)
        #expect(policy.staleTime == .seconds(195) && policy.unknownIntervalStaleTime == .seconds(900))
    }
}
