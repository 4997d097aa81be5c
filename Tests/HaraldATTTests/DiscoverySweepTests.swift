import HaraldATT
import HaraldCodec
import HaraldCore
import Testing

/// Discovery of many services or characteristics with one sweep finds exactly what the
/// per-service and per-characteristic procedures find, in fewer round trips.
@Suite("GATT discovery sweeps")
struct DiscoverySweepTests {
    /// `services` services of `perService` 16-bit characteristics each; with `notifying`, each
    /// characteristic has a CCCD (declaration, value, CCCD: three handles).
    static func services(_ count: Int, perService: Int, notifying: Bool = false) -> [GATTServiceDefinition] {
        (0..<count).map { service in
            GATTServiceDefinition(
                uuid: BluetoothUUID(UInt16(0x1800 + service)),
                characteristics: (0..<perService).map { index in
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(UInt16(0x2A00 + service * perService + index)), properties: notifying ? [.read, .notify] : .read,
                        value: [UInt8(index)])
                })
        }
    }

    /// A database mixing 16- and 128-bit UUIDs, descriptors of several kinds and a characteristic
    /// without room for descriptors.
    static var mixed: [GATTServiceDefinition] {
        SampleDevice.services + [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x181A),
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: BluetoothUUID(0x2A6E), properties: [.read, .notify], value: [0x10, 0x09],
                        descriptors: [.userDescription("temperature"), GATTDescriptorDefinition(uuid: BluetoothUUID(0x290C), value: [1, 2, 3])]),
                    GATTCharacteristicDefinition(uuid: "6E400003-B5A3-F393-E0A9-E50E24DCCA9E", properties: .indicate),
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A6F), properties: .read, value: [0x40]),
                ])
        ]
    }

    @Test(arguments: [23, 247])
    func characteristicSweepFindsWhatPerServiceDiscoveryFinds(mtu: Int) async throws {
        let link = try await Link(services: Self.mixed, mtu: mtu)
        try await link.client.exchangeMTU()
        let services = try await link.client.discoverPrimaryServices()
        let swept = try await link.client.discoverCharacteristics(ofAll: services)
        var perService: [[GATTCharacteristic]] = []
        for service in services { perService.append(try await link.client.discoverCharacteristics(of: service)) }
        #expect(swept == perService)
        #expect(swept.flatMap { $0 }.count == Self.mixed.flatMap(\.characteristics).count)
    }

    /// One Read By Type run over all services: ⌊(MTU − 2) / 7⌋ 16-bit declarations per response,
    /// plus the closing Attribute Not Found — instead of that per service.
    @Test(arguments: [23, 247])
    func characteristicSweepCostsOneReadByTypeRunOverAllServices(mtu: Int) async throws {
        let link = try await Link(services: Self.services(5, perService: 3), mtu: mtu)
        try await link.client.exchangeMTU()
        let services = try await link.client.discoverPrimaryServices()
        let before = await link.client.counters.roundTrips[.readByTypeRequest, default: 0]
        _ = try await link.client.discoverCharacteristics(ofAll: services)
        let observed = await link.client.counters.roundTrips[.readByTypeRequest, default: 0] - before
        #expect(observed == ceilDiv(5 * 3, (mtu - 2) / 7) + 1)
        #expect(observed < 5 * (ceilDiv(3, (mtu - 2) / 7) + 1))
    }

    @Test func characteristicSweepIgnoresDeclarationsOfServicesNotAskedFor() async throws {
        let link = try await Link(services: Self.services(3, perService: 2))
        let services = try await link.client.discoverPrimaryServices()
        let outer = [services[2], services[0]]
        let swept = try await link.client.discoverCharacteristics(ofAll: outer)
        #expect(swept == [try await link.client.discoverCharacteristics(of: services[2]), try await link.client.discoverCharacteristics(of: services[0])])
    }

    @Test func characteristicSweepOfNoServicesCostsNothing() async throws {
        let link = try await Link(services: SampleDevice.services)
        #expect(try await link.client.discoverCharacteristics(ofAll: []).isEmpty)
        #expect(await link.client.counters.totalRoundTrips == 0)
    }

    @Test func characteristicSweepRejectsOverlappingServices() async throws {
        let link = try await Link(services: SampleDevice.services)
        let services = [
            GATTService(uuid: BluetoothUUID(0x1800), handles: ATTHandleRange(start: 1, end: 10)),
            GATTService(uuid: BluetoothUUID(0x1801), handles: ATTHandleRange(start: 5, end: 12)),
        ]
        await #expect(throws: GATTError.self) { try await link.client.discoverCharacteristics(ofAll: services) }
    }

    @Test(arguments: [23, 247])
    func descriptorSweepFindsWhatPerCharacteristicDiscoveryFinds(mtu: Int) async throws {
        let link = try await Link(services: Self.mixed, mtu: mtu)
        try await link.client.exchangeMTU()
        let characteristics = await link.database.characteristics.map(\.characteristic)
        let swept = try await link.client.discoverDescriptors(ofAll: characteristics)
        var each: [[GATTDescriptor]] = []
        for characteristic in characteristics { each.append(try await link.client.discoverDescriptors(of: characteristic)) }
        #expect(swept == each)
        #expect(swept.contains { $0.count == 3 })
    }

    /// Ten notifying characteristics at MTU 247: the ten CCCDs and the declarations and values
    /// between them fit one Find Information response, against one request per characteristic.
    @Test func descriptorSweepAtALargeMTUCostsOneRequest() async throws {
        let link = try await Link(services: Self.services(1, perService: 10, notifying: true), mtu: 247)
        try await link.client.exchangeMTU()
        let characteristics = await link.database.characteristics.map(\.characteristic)
        let swept = try await link.client.discoverDescriptors(ofAll: characteristics)
        #expect(swept.map { $0.map(\.uuid) } == Array(repeating: [GATTAttributeType.clientCharacteristicConfiguration], count: 10))
        #expect(await link.client.counters.roundTrips[.findInformationRequest] == 1)
    }

    /// At MTU 23 a Find Information response holds ⌊(23 − 2) / 4⌋ = 5 16-bit entries. From the
    /// first CCCD to the last are 3 × 9 + 1 = 28 handles; each response ends on a declaration
    /// (CCCD, declaration, value, CCCD, declaration), and the next request skips the value after
    /// it, which cannot be a descriptor: every request advances six handles.
    @Test func descriptorSweepAtMTU23SkipsHandlesThatCannotBeDescriptors() async throws {
        let link = try await Link(services: Self.services(1, perService: 10, notifying: true))
        let characteristics = await link.database.characteristics.map(\.characteristic)
        let swept = try await link.client.discoverDescriptors(ofAll: characteristics)
        #expect(swept.map(\.count) == Array(repeating: 1, count: 10))
        let requests = await link.client.counters.roundTrips[.findInformationRequest, default: 0]
        #expect(requests == ceilDiv(3 * 9 + 1, (23 - 2) / 4 + 1))
        #expect(requests < 10)
    }

    @Test func descriptorSweepOfCharacteristicsWithoutRoomCostsNothing() async throws {
        let link = try await Link(services: Self.services(2, perService: 3))
        let characteristics = await link.database.characteristics.map(\.characteristic)
        let swept = try await link.client.discoverDescriptors(ofAll: characteristics)
        #expect(swept == Array(repeating: [], count: 6))
        #expect(await link.client.counters.totalRoundTrips == 0)
    }
}
