import HaraldATT
import HaraldCodec
import HaraldTestSupport
import Testing

@Suite("Client and server on one bearer")
struct DualRoleTests {
    @Test func eachSideDiscoversTheOthersServicesOverOneBearer() async throws {
        let clock = ManualClock()
        let (linkA, linkB) = ATTMemoryBearer.pair(mtu: 100)
        let sideA = ATTDualRoleBearer(linkA)
        let sideB = ATTDualRoleBearer(linkB)
        let gap = [GATTServiceDefinition(uuid: BluetoothUUID(0x1800), characteristics: [
            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: .read, value: Array("central".utf8)),
        ])]
        let serverA = try GATTServer(services: gap, clock: clock)
        let connectionA = await serverA.attach(sideA.server)
        let serverB = try GATTServer(services: SampleDevice.services, clock: clock)
        await serverB.attach(sideB.server)
        let clientA = GATTClient(bearer: sideA.client, clock: clock)
        let clientB = GATTClient(bearer: sideB.client, clock: clock)

        #expect(try await clientA.exchangeMTU() == 100)
        let servicesOfB = try await clientA.discoverPrimaryServices()
        let servicesOfA = try await clientB.discoverPrimaryServices()
        #expect(servicesOfB == (await serverB.database.services))
        #expect(servicesOfA == (await serverA.database.services))
        // B's request reached A's server after A's client settled the MTU, which A's server adopted.
        let mtuOfServerA = await serverA.mtu(for: connectionA)
        #expect(mtuOfServerA == 100)
        let mtuOfClientB = await clientB.mtu
        #expect(mtuOfClientB == 100)
    }
}
