import HaraldCore
import HaraldFleet
import PropertyBased
import Testing

/// Properties of the arbitration over random orders of advertisements.
@Suite("Fleet arbiter properties")
struct FleetArbiterProperties {
    /// Two gateways hearing one device at fixed levels, their advertisements interleaved at
    /// random: the device changes owner at most once (to the stronger gateway, if it is more
    /// than the threshold stronger), and never goes back.
    @Test func ownershipNeverFlapsMoreThanOnceForAFixedRSSIPair() async {
        let device = BluetoothAddress("AA:BB:CC:DD:EE:01")!
        await propertyCheck(
            count: 300, input: Gen.int(in: -100...(-20)), Gen.int(in: -100...(-20)), Gen.bool.array(of: 1...200)
        ) { first, second, order in
            var fleet = FleetArbiter()
            var changes = 0
            for (index, fromFirst) in order.enumerated() {
                let observation = FleetObservation(
                    gateway: fromFirst ? "first" : "second", device: device, rssi: Double(fromFirst ? first : second),
                    time: .seconds(index))
                for event in fleet.observe(observation) {
                    if case .ownerChanged = event { changes += 1 }
                }
            }
            #expect(changes <= 1, "first \(first) dBm, second \(second) dBm, order \(order)")
        }
    }
}
