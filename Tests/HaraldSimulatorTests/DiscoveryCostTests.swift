import Harald
import HaraldATT
import HaraldCodec
import HaraldGoProSimulation
import HaraldMiBandSimulation
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

    private func discoverEverything(maximumMTU: Int, device strap: VirtualPeripheral = .heartRateStrap()) async throws -> Measured {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap], link: LinkParameters(maximumATTMTU: maximumMTU))
        return try await simulation.run {
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
    func discoveringEverythingCostsTheMinimumRoundTrips(maximumMTU: Int) async throws {
        let measured = try await discoverEverything(maximumMTU: maximumMTU)
        let mtu = measured.mtu
        #expect(mtu == maximumMTU)
        // All of the strap's UUIDs are 16-bit: 6-byte service entries, 7-byte declarations,
        // 4-byte descriptor entries; each response carries ⌊(MTU − 2) / entry⌋ of them.
        let servicesExpected = ceilDiv(measured.services, (mtu - 2) / 6) + 1
        let characteristicsExpected = measured.characteristicsPerService.map { ceilDiv($0, (mtu - 2) / 7) + 1 }.reduce(0, +)
        // Find Information stops without an extra request when the last entry ends the range.
        let descriptorsExpected = measured.descriptorsPerCharacteristic.filter { $0 >= 0 }.map { ceilDiv(max($0, 1), (mtu - 2) / 4) }.reduce(0, +)
        // Heart Rate, Battery, Device Information, and the Generic Attribute service the server adds.
        #expect(measured.services == 4)
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

    @Test func aLargerMTUNeedsFewerCharacteristicDiscoveryRoundTrips() async throws {
        let small = try await discoverEverything(maximumMTU: 23)
        let large = try await discoverEverything(maximumMTU: 247)
        // Device Information has 5 characteristics: two responses at MTU 23 (3 per response), one at 247.
        #expect(small.roundTrips[.readByTypeRequest]! > large.roundTrips[.readByTypeRequest]!)
    }

    @Test(arguments: [23, 247])
    func theCameraAndTheBandWithVendorUUIDsAreDiscoveredAtTheMinimumCost(maximumMTU: Int) async throws {
        for device in [VirtualPeripheral.actionCamera(), .fitnessBand()] {
            let measured = try await discoverEverything(maximumMTU: maximumMTU, device: device)
            #expect(measured.roundTrips.values.reduce(0, +) == measured.minimum.total, "\(device.name ?? "?") at MTU \(maximumMTU)")
        }
    }
}

/// Discovery the public API's way (one Read By Type sweep, one Find Information sweep) costs the
/// fewest round trips those sweeps allow for each device's attribute layout.
@Suite("Discovery sweeps match their minimum")
struct SweepDiscoveryCostTests {
    @Test(arguments: [23, 247])
    func everyDemoDeviceIsDiscoveredBySweepsAtTheMinimumCost(maximumMTU: Int) async throws {
        for device in [VirtualPeripheral.heartRateStrap(), .actionCamera(), .fitnessBand()] {
            let simulation = Simulation()
            let simulator = try Simulator(clock: simulation.clock, devices: [device], link: LinkParameters(maximumATTMTU: maximumMTU))
            let central = Central(backend: simulator.backend, clock: simulation.clock)
            let (spent, minimum) = try await simulation.run {
                let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
                let characteristics = try await connection.discoverAll().flatMap(\.characteristics)
                _ = try await connection.discoverDescriptors(ofAll: characteristics)
                let mtu = await connection.mtu()
                return (
                    await simulator.connection(to: device.address)!.client.counters.totalRoundTrips,
                    await simulator.runtime(of: device.address)!.minimumSweepDiscoveryCost(mtu: mtu)
                )
            }
            #expect(spent == minimum.total, "\(device.name ?? "?") at MTU \(maximumMTU): \(minimum)")
        }
    }

    @Test func theDescriptorSweepMinimumCountsAttributesBetweenCharacteristicsThatARequestCannotSkip() throws {
        // Three notifying characteristics back to back: CCCDs at 4, 7 and 10, with a declaration
        // and a value between each. At MTU 23 a response lists up to 5 attributes with 16-bit
        // types: 4…8 (CCCDs 4 and 7), then 10.
        let database = try GATTDatabase(services: [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180D),
                characteristics: [0x2A37, 0x2A38, 0x2A39].map {
                    GATTCharacteristicDefinition(uuid: BluetoothUUID($0), properties: .notify)
                })
        ])
        #expect(DiscoveryCost(sweeping: database, mtu: 23).descriptors == 2)
        #expect(DiscoveryCost(sweeping: database, mtu: 247).descriptors == 1)
    }
}
