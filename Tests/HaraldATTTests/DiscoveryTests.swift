import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

@Suite("GATT discovery")
struct DiscoveryTests {
    @Test("GATT/CL/GAC/BV-01-C, GATT/SR/GAC/BV-01-C: Exchange MTU settles on the smaller receive MTU, once")
    func exchangeMTUSettlesOnTheSmallerReceiveMTUOnce() async throws {
        let clock = ManualClock()
        let (central, peripheral) = ATTMemoryBearer.pair(firstMTU: 247, secondMTU: 185)
        let server = try GATTServer(services: SampleDevice.services, clock: clock)
        let connection = await server.attach(peripheral)
        let client = GATTClient(bearer: central, clock: clock)
        #expect(try await client.exchangeMTU() == 185)
        #expect(try await client.exchangeMTU() == 185)
        let exchanges = await client.counters.roundTrips[.exchangeMTURequest]
        #expect(exchanges == 1)
        let serverMTU = await server.mtu(for: connection)
        #expect(serverMTU == 185)
        let bearerMTU = await central.negotiatedMTU
        #expect(bearerMTU == 185)
    }

    @Test("GATT/CL/GAD/BV-01-C, GATT/SR/GAD/BV-01-C: Discover All Primary Services finds every primary service")
    func discoversEveryPrimaryServiceOfTheDatabase() async throws {
        let link = try await Link(services: SampleDevice.services)
        let services = try await link.client.discoverPrimaryServices()
        let expected = await link.database.services
        #expect(services == expected)
    }

    /// Read By Group Type returns ⌊(MTU − 2) / 6⌋ 16-bit services per response, and one more
    /// request ends with Attribute Not Found (protocols.md D.5).
    @Test(arguments: [23, 247])
    func primaryServiceDiscoveryCostsTheCoreSpecRoundTrips(mtu: Int) async throws {
        let definitions = (0..<50).map { GATTServiceDefinition(uuid: BluetoothUUID(UInt16(0x1800 + $0)), characteristics: []) }
        let link = try await Link(services: definitions, mtu: mtu)
        try await link.client.exchangeMTU()
        let services = try await link.client.discoverPrimaryServices()
        #expect(services.count == 50)
        let perResponse = (mtu - 2) / 6
        let observed = await link.client.counters.roundTrips[.readByGroupTypeRequest]
        #expect(observed == ceilDiv(50, perResponse) + 1)
    }

    @Test func services128BitComeOnePerResponseAtMTU23() async throws {
        let definitions = (0..<4).map {
            GATTServiceDefinition(uuid: BluetoothUUID(high: 0x1234_0000_0000_1000 + UInt64($0) << 32, low: 1), characteristics: [])
        }
        let link = try await Link(services: definitions)
        let services = try await link.client.discoverPrimaryServices()
        #expect(services.map { $0.uuid } == definitions.map { $0.uuid })
        let observed = await link.client.counters.roundTrips[.readByGroupTypeRequest]
        #expect(observed == 4 + 1)
    }

    @Test("GATT/CL/GAD/BV-02-C, GATT/SR/GAD/BV-02-C: Discover Primary Service by Service UUID")
    func discoversAServiceByUUID() async throws {
        let link = try await Link(services: SampleDevice.services)
        let heartRate = try await link.client.discoverPrimaryServices(uuid: BluetoothUUID(0x180D))
        let expected = await link.database.services.filter { $0.uuid == BluetoothUUID(0x180D) }
        #expect(heartRate == expected)
        let vendor = try await link.client.discoverPrimaryServices(uuid: SampleDevice.vendorService)
        #expect(vendor.map { $0.uuid } == [SampleDevice.vendorService])
        #expect(try await link.client.discoverPrimaryServices(uuid: BluetoothUUID(0x1812)).isEmpty)
    }

    @Test("GATT/CL/GAD/BV-04-C, GATT/SR/GAD/BV-04-C: Discover All Characteristics of a Service, with their handle ranges")
    func discoversCharacteristicsWithTheirHandleRanges() async throws {
        let link = try await Link(services: SampleDevice.services)
        let database = await link.database
        for service in try await link.client.discoverPrimaryServices() {
            let characteristics = try await link.client.discoverCharacteristics(of: service)
            #expect(characteristics == database.characteristics.filter { $0.service == service }.map { $0.characteristic })
        }
    }

    /// Read By Type 0x2803 returns ⌊(MTU − 2) / 7⌋ 16-bit declarations per response, plus the
    /// closing Attribute Not Found.
    @Test(arguments: [23, 247])
    func characteristicDiscoveryCostsTheCoreSpecRoundTrips(mtu: Int) async throws {
        let characteristics = (0..<10).map { GATTCharacteristicDefinition(uuid: BluetoothUUID(UInt16(0x2A00 + $0)), properties: .read) }
        let link = try await Link(services: [GATTServiceDefinition(uuid: BluetoothUUID(0x180A), characteristics: characteristics)], mtu: mtu)
        try await link.client.exchangeMTU()
        let service = try #require(try await link.client.discoverPrimaryServices().first)
        let found = try await link.client.discoverCharacteristics(of: service)
        #expect(found.map { $0.uuid } == characteristics.map { $0.uuid })
        let observed = await link.client.counters.roundTrips[.readByTypeRequest]
        #expect(observed == ceilDiv(10, (mtu - 2) / 7) + 1)
    }

    @Test("GATT/CL/GAD/BV-05-C, GATT/SR/GAD/BV-05-C: Discover Characteristics by UUID")
    func discoversCharacteristicsByUUID() async throws {
        let link = try await Link(services: SampleDevice.services)
        let service = try #require(try await link.client.discoverPrimaryServices(uuid: BluetoothUUID(0x180D)).first)
        let found = try await link.client.discoverCharacteristics(of: service, uuid: BluetoothUUID(0x2A38))
        let expected = await link.valueHandle(BluetoothUUID(0x2A38))
        #expect(found.map(\.valueHandle) == [expected])
    }

    /// Find Information returns ⌊(MTU − 2) / 4⌋ 16-bit descriptors per response; the loop ends
    /// when the last one reaches the characteristic's end handle.
    @Test("GATT/CL/GAD/BV-06-C: Discover All Characteristic Descriptors costs the Core spec round trips")
    func descriptorDiscoveryCostsTheCoreSpecRoundTrips() async throws {
        let descriptors = (0..<6).map { GATTDescriptorDefinition(uuid: BluetoothUUID(UInt16(0x2910 + $0)), value: [UInt8($0)]) }
        let definition = GATTServiceDefinition(
            uuid: BluetoothUUID(0x180A),
            characteristics: [
                GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A29), properties: [.read, .notify], descriptors: descriptors)
            ])
        let link = try await Link(services: [definition])
        let service = try #require(try await link.client.discoverPrimaryServices().first)
        let characteristic = try #require(try await link.client.discoverCharacteristics(of: service).first)
        let found = try await link.client.discoverDescriptors(of: characteristic)
        #expect(found.map { $0.uuid } == [GATTAttributeType.clientCharacteristicConfiguration] + descriptors.map { $0.uuid })
        let observed = await link.client.counters.roundTrips[.findInformationRequest]
        #expect(observed == ceilDiv(7, (23 - 2) / 4))
    }

    @Test func characteristicWithoutRoomForDescriptorsCostsNoRequest() async throws {
        let link = try await Link(services: SampleDevice.services)
        let characteristic = try #require(await link.database.characteristic(BluetoothUUID(0x2A00)))
        #expect(try await link.client.discoverDescriptors(of: characteristic).isEmpty)
        let observed = await link.client.counters.totalRoundTrips
        #expect(observed == 0)
    }

    @Test("GATT/CL/GAD/BV-03-C, GATT/SR/GAD/BV-03-C: Find Included Services, 16- and 128-bit UUIDs")
    func findsIncludedServicesWith16And128BitUUIDs() async throws {
        let definitions = [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x180F), isPrimary: false,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A19), properties: .read, value: [50])
                ]),
            GATTServiceDefinition(uuid: SampleDevice.vendorService, isPrimary: false, characteristics: []),
            GATTServiceDefinition(uuid: BluetoothUUID(0x1812), includes: [BluetoothUUID(0x180F), SampleDevice.vendorService], characteristics: []),
        ]
        let link = try await Link(services: definitions)
        let primary = try await link.client.discoverPrimaryServices()
        #expect(primary.map { $0.uuid } == [BluetoothUUID(0x1812)])
        let included = try await link.client.discoverIncludedServices(of: primary[0])
        let database = await link.database
        #expect(included.map { $0.service.uuid } == [BluetoothUUID(0x180F), SampleDevice.vendorService])
        #expect(included.map { $0.service.handles } == database.services.prefix(2).map { $0.handles })
        // One Read for the 128-bit included service's UUID.
        let reads = await link.client.counters.roundTrips[ATTOpcode.readRequest]
        #expect(reads == 1)
    }
}
