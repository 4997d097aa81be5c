import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// The public API's batch operations over the simulator: discovery sweeps and batched reads give
/// the same results as one-at-a-time calls, in fewer round trips.
@Suite("Batch discovery and reads through the public API")
struct BatchOperationsTests {
    /// A device whose values are readable, one not permitted by the server, one not readable at
    /// all (no read property), and one longer than a Read Multiple Variable response at MTU 23.
    static func device(refusingBatches: Bool = false) -> VirtualPeripheral {
        VirtualPeripheral(address: BluetoothAddress("B0:00:00:00:00:02", kind: .random)!, advertisingData: .device(name: "Batch")) { _ in
            PeripheralBehaviour(
                services: [
                    GATTServiceDefinition(
                        uuid: BluetoothUUID(0x180A),
                        characteristics: [
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: .read, value: Array("Harald Labs".utf8)),
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A24), properties: .read, permissions: [], value: [1]),
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A25), properties: .read, value: (0..<60).map { UInt8($0) }),
                        ]),
                    GATTServiceDefinition(
                        uuid: BluetoothUUID(0xFFF0),
                        characteristics: [
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0xFFF1), properties: .notify),
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0xFFF2), properties: [.read, .write], value: [4, 5]),
                        ]),
                ], serverConfiguration: .init(supportsReadMultipleVariable: !refusingBatches))
        }
    }

    @Test(arguments: [23, 247])
    func sweepsFindTheSameTreeAsOneCallPerServiceAndCharacteristic(maximumMTU: Int) async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap], link: LinkParameters(maximumATTMTU: maximumMTU))
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            let client = simulator.connection(to: strap.address)!.client
            let before = await client.counters.roundTrips
            let tree = try await connection.discoverAll()
            let characteristics = tree.flatMap(\.characteristics)
            let descriptors = try await connection.discoverDescriptors(ofAll: characteristics)
            let swept = await client.counters.roundTrips
            let mtu = await connection.mtu()
            // All 16-bit: one Read By Type run over the services, ⌊(MTU − 2) / 7⌋ declarations a
            // response. Turning Service Changed on before the discovery adds one Read By Type
            // (0x2A05) and one Find Information.
            #expect(
                swept[.readByTypeRequest, default: 0] - before[.readByTypeRequest, default: 0] == (characteristics.count + (mtu - 2) / 7 - 1) / ((mtu - 2) / 7)
                    + 1 + 1)
            #expect(swept[.findInformationRequest, default: 0] - 1 <= characteristics.filter { $0.endHandle! > $0.valueHandle! }.count)

            var oneByOne: [[DiscoveredDescriptor]] = []
            for characteristic in characteristics { oneByOne.append(try await connection.discoverDescriptors(of: characteristic)) }
            #expect(descriptors == oneByOne)
            #expect(descriptors.contains { !$0.isEmpty })
            await connection.disconnect()
        }
    }

    @Test(arguments: [false, true])
    func batchedReadsGiveWhatSingleReadsGive(refusingBatches: Bool) async throws {
        let simulation = Simulation()
        let device = Self.device(refusingBatches: refusingBatches)
        let simulator = try Simulator(clock: simulation.clock, devices: [device], link: LinkParameters(maximumATTMTU: 23))
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let characteristics = try await connection.discoverAll().flatMap(\.characteristics)
            let batched = try await connection.readRawValues(of: characteristics)
            var single: [Result<[UInt8], BluetoothError>] = []
            for characteristic in characteristics {
                do { single.append(.success(try await connection.readRaw(characteristic))) } catch let error as BluetoothError {
                    single.append(.failure(error))
                }
            }
            #expect(batched == single)
            #expect(try batched[2].get().count == 60)
            let refused = characteristics[1].id
            #expect(batched[1] == .failure(.attribute(.readNotPermitted, on: refused)))
            guard case .failure(.notPermitted) = batched[3] else {
                Issue.record("a characteristic without the read property is not read: \(batched[3])")
                return
            }
            let client = simulator.connection(to: device.address)!.client
            #expect(await client.readMultipleVariableRefused == refusingBatches)
            await connection.disconnect()
        }
    }

    @Test func readsOfValuesThatFitOneResponseCostOneRoundTrip() async throws {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap], link: LinkParameters(maximumATTMTU: 247))
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        try await simulation.run {
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            let readable = try await connection.discoverAll().flatMap(\.characteristics).filter { $0.properties.contains(.read) }
            let client = simulator.connection(to: strap.address)!.client
            let before = await client.counters.totalRoundTrips
            let values = try await connection.readRawValues(of: readable).map { try $0.get() }
            let mtu = await connection.mtu()
            try #require(values.reduce(1) { $0 + 2 + $1.count } <= mtu, "the strap's values fit one response")
            #expect(readable.count >= 2)
            #expect(await client.counters.totalRoundTrips - before == 1)
            await connection.disconnect()
        }
    }
}
