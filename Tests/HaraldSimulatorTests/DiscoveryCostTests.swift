import Harald
import HaraldATT
import HaraldSimulator
import Testing

/// Discovery of the heart-rate strap costs exactly the round trips the Core spec procedures need
/// (protocols.md D.5), computed here from the strap's attribute layout and the MTU.
@Suite("Discovery round trips match the GATT procedure formulas")
struct DiscoveryCostTests {
    struct Measured: Sendable {
        var roundTrips: [ATTOpcode: Int]
        var services: Int
        var characteristicsPerService: [Int]
        var descriptorsPerCharacteristic: [Int]
        var mtu: Int
        var minimum: DiscoveryCost
    }

    private func discoverEverything(maximumMTU: Int, device strap: VirtualPeripheral = .heartRateStrap()) throws -> Measured {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap], link: LinkParameters(maximumATTMTU: maximumMTU))
        return try simulation.run {
            _ = try await simulator.backend.connect(to: strap.identifier, timeout: .seconds(5))
            let client = simulator.connection(to: strap.address)!.client
            let services = try await client.discoverPrimaryServices()
            var perService: [Int] = []
            var perCharacteristic: [Int] = []
            for service in services {
                let characteristics = try await client.discoverCharacteristics(of: service)
                perService.append(characteristics.count)
                for characteristic in characteristics {
                    let descriptors = try await client.discoverDescriptors(of: characteristic)
                    // A characteristic with no room for descriptors costs no request.
                    perCharacteristic.append(characteristic.descriptorHandles == nil ? -1 : descriptors.count)
                }
            }
            let mtu = await client.mtu
            return Measured(
                roundTrips: await client.counters.roundTrips, services: services.count, characteristicsPerService: perService,
                descriptorsPerCharacteristic: perCharacteristic, mtu: mtu,
                minimum: await simulator.runtime(of: strap.address)!.minimumDiscoveryCost(mtu: mtu))
        }
    }

    private func ceilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }

    @Test(arguments: [23, 247])
    func discoveringEverythingCostsTheMinimumRoundTrips(maximumMTU: Int) throws {
        let measured = try discoverEverything(maximumMTU: maximumMTU)
        let mtu = measured.mtu
        #expect(mtu == maximumMTU)
        // All of the strap's UUIDs are 16-bit: 6-byte service entries, 7-byte declarations,
        // 4-byte descriptor entries; each response carries ⌊(MTU − 2) / entry⌋ of them.
        let servicesExpected = ceilDiv(measured.services, (mtu - 2) / 6) + 1
        let characteristicsExpected = measured.characteristicsPerService.map { ceilDiv($0, (mtu - 2) / 7) + 1 }.reduce(0, +)
        // Find Information stops without an extra request when the last entry ends the range.
        let descriptorsExpected = measured.descriptorsPerCharacteristic.filter { $0 >= 0 }.map { ceilDiv(max($0, 1), (mtu - 2) / 4) }.reduce(0, +)
        #expect(measured.services == 3)
        #expect(measured.roundTrips[.exchangeMTURequest] == 1)
        #expect(measured.roundTrips[.readByGroupTypeRequest] == servicesExpected)
        #expect(measured.roundTrips[.readByTypeRequest] == characteristicsExpected)
        #expect(measured.roundTrips[.findInformationRequest, default: 0] == descriptorsExpected)
        // The simulator's yardstick for benchmarks agrees.
        #expect(measured.minimum.services == servicesExpected)
        #expect(measured.minimum.characteristics == characteristicsExpected)
        #expect(measured.minimum.descriptors == descriptorsExpected)
        #expect(measured.minimum.total == measured.roundTrips.values.reduce(0, +))
    }

    @Test func aLargerMTUNeedsFewerCharacteristicDiscoveryRoundTrips() throws {
        let small = try discoverEverything(maximumMTU: 23)
        let large = try discoverEverything(maximumMTU: 247)
        // Device Information has 5 characteristics: two responses at MTU 23 (3 per response), one at 247.
        #expect(small.roundTrips[.readByTypeRequest]! > large.roundTrips[.readByTypeRequest]!)
    }

    @Test(arguments: [23, 247])
    func theCameraAndTheBandWithVendorUUIDsAreDiscoveredAtTheMinimumCost(maximumMTU: Int) throws {
        for device in [VirtualPeripheral.actionCamera(), .fitnessBand()] {
            let measured = try discoverEverything(maximumMTU: maximumMTU, device: device)
            #expect(measured.roundTrips.values.reduce(0, +) == measured.minimum.total, "\(device.name ?? "?") at MTU \(maximumMTU)")
        }
    }
}
