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
        let gap = [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1800),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: .read, value: Array("central".utf8))
                ])
        ]
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
        // Each end's engines keep their bearer, whose peer feeds the other end's engines: like a
        // real link, the pair lives until one end closes it.
        await linkA.close(.closedLocally)
    }

    /// Core Vol 3 Part F §3.4.2.2: both ends use the new ATT_MTU once the Exchange MTU Response
    /// is sent. A peer may answer our client's exchange and at once send our server a request
    /// that only fits the new MTU; our server must take it, not refuse it as over-long because
    /// our client had not passed the MTU on yet.
    @Test func aRequestSentRightAfterTheMTUResponseIsMeasuredAgainstTheNewMTU() async throws {
        let clock = ManualClock()
        let (ours, peer) = ATTMemoryBearer.pair(mtu: 100)
        let side = ATTDualRoleBearer(ours)
        let writable = [
            GATTServiceDefinition(
                uuid: BluetoothUUID(0x1800),
                characteristics: [
                    GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A00), properties: [.read, .write])
                ])
        ]
        let server = try GATTServer(services: writable, clock: clock)
        let connection = await server.attach(side.server)
        let client = GATTClient(bearer: side.client, clock: clock, configuration: .init(preferredMTU: 100))
        var fromUs = peer.events.makeAsyncIterator()
        func next() async -> [UInt8]? {
            guard case .received(let bytes)? = await fromUs.next() else { return nil }
            return bytes
        }

        let exchange = Task { try await client.exchangeMTU() }
        #expect(await next() == [0x02, 100, 0])
        // The response and, right behind it, a Write Request of 3 + 90 bytes (over 23, within 100).
        try await peer.send([0x03, 100, 0])
        try await peer.send([0x12, 0x03, 0x00] + [UInt8](repeating: 0x5A, count: 90))
        #expect(await next() == [0x13])  // Write Response, not an Error Response (Invalid PDU)
        #expect(try await exchange.value == 100)
        #expect(await server.value(handle: 0x0003) == [UInt8](repeating: 0x5A, count: 90))
        #expect(await server.mtu(for: connection) == 100)
    }
}
