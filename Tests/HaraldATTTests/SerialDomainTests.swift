import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

/// Whether `client`'s isolated code runs on `domain`'s executor.
private func runsOn(_ domain: ProbedDomain, _ client: isolated GATTClient) -> Bool { domain.isCurrent }

/// Whether `server`'s isolated code runs on `domain`'s executor.
private func runsOn(_ domain: ProbedDomain, _ server: isolated GATTServer) -> Bool { domain.isCurrent }

/// The ATT engines run on the serial domain of the link they serve when they are given one.
@Suite("ATT engines on a link's serial domain")
struct SerialDomainTests {
    @Test func aClientGivenASerialDomainRunsOnItsExecutor() async throws {
        let domain = ProbedDomain()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        let server = try GATTServer(services: SampleDevice.services, clock: ManualClock(), configuration: .exactLayout())
        await server.attach(peripheral)
        let client = GATTClient(bearer: central, clock: ManualClock(), serialDomain: domain)
        let name = await server.database.characteristic(BluetoothUUID(0x2A00))!.valueHandle
        #expect(try await client.read(handle: name) == Array("Harald".utf8))
        #expect(await runsOn(domain, client))
        #expect(domain.jobsRun > 0)
    }

    @Test func aClientWithoutASerialDomainRunsOnAnExecutorOfItsOwn() async throws {
        let domain = ProbedDomain()
        let (central, _) = ATTMemoryBearer.pair(mtu: 23)
        let client = GATTClient(bearer: central, clock: ManualClock())
        #expect(await runsOn(domain, client) == false)
    }

    @Test func aServerGivenASerialDomainRunsOnItsExecutor() async throws {
        let domain = ProbedDomain()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        let server = try GATTServer(
            services: SampleDevice.services, clock: ManualClock(), configuration: .exactLayout(), serialDomain: domain)
        await server.attach(peripheral)
        let client = GATTClient(bearer: central, clock: ManualClock())
        let level = await server.database.characteristic(BluetoothUUID(0x2A19))!.valueHandle
        #expect(try await client.read(handle: level) == [85])
        #expect(await runsOn(domain, server))
    }

    @Test func aClientAndAServerSharingOneDomainServeEachOther() async throws {
        // Both ends on one serial executor: each waits for the other only by suspending, so a
        // request, its response and a notification all get through.
        let domain = ProbedDomain()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        let server = try GATTServer(
            services: SampleDevice.services, clock: ManualClock(), configuration: .exactLayout(), serialDomain: domain)
        let connection = await server.attach(peripheral)
        let client = GATTClient(bearer: central, clock: ManualClock(), serialDomain: domain)
        let level = await server.database.characteristic(BluetoothUUID(0x2A19))!.valueHandle
        let subscription = await client.subscribe(handle: level)
        try await client.write(handle: level + 1, value: ClientCharacteristicConfiguration.notifications.bytes)
        #expect(await server.notify(handle: level, value: [42], to: connection) == 1)
        var values = subscription.values.makeAsyncIterator()
        #expect(await values.next()?.value == [42])
        #expect(try await client.read(handle: level) == [85])
        #expect(await runsOn(domain, client))
        #expect(await runsOn(domain, server))
    }
}
