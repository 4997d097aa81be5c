import Harald
import HaraldATT
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldL2CAP
import HaraldSMP
import Testing

/// Credit-based channels between a Harald central and a Harald peripheral, each on its own Bumble
/// controller (part of the Harald↔Harald suite, so it runs serialized with it on its controllers).
/// The advertised names are unlike every other peer's on the integration link (the central finds
/// its peripheral by name prefix: "Harald-L2" is Bumble's channel peer there), and every test runs
/// under a time limit, so a wrong peer fails the test instead of stalling the run.
extension HaraldPeripheralBumbleIntegrationTests {
    /// Echoes every SDU of every channel the listener gets, until it ends.
    static func echo(_ listener: CreditBasedChannelListener) -> Task<Void, Never> {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for await channel in listener.channels {
                    group.addTask {
                        while let sdu = try? await channel.receive() { try? await channel.send(sdu) }
                    }
                }
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func aHaraldCentralsChannelToAHaraldPeripheralCarriesSDUsBothWays() async throws {
        let sides = try await Self.sides(
            name: "HaraldChan1", peripheralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()),
            centralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()))
        let listener = try await sides.peripheral.serveChannels(
            spsm: 0x80, requirement: .none, limits: CreditBasedReceiveLimits(mtu: 1000, mps: 247, bufferCapacity: 8192))
        let echoing = Self.echo(listener)
        let connection = try await sides.connect()
        let channel = try await connection.openL2CAPChannel(psm: 0x80, options: L2CAPChannelOptions(mtu: 1000, mps: 120))
        var replies = channel.incoming.makeAsyncIterator()
        var echoed: [[UInt8]] = []
        let sdus = (0..<40).map { round in (0..<(round * 25)).map { UInt8(truncatingIfNeeded: $0 ^ round) } }
        for sdu in sdus {
            try await channel.send(sdu)
            echoed.append(try #require(try await replies.next()))
        }
        await channel.close()
        await connection.disconnect()
        await sides.close()
        echoing.cancel()
        #expect(echoed == sdus)
        #expect(channel.peerMTU == 1000)
    }

    @Test(.timeLimit(.minutes(2))) func aChannelThatNeedsEncryptionPairsOnceAndIsThenOpened() async throws {
        let sides = try await Self.sides(
            name: "HaraldChan2", peripheralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()),
            centralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()))
        let listener = try await sides.peripheral.serveChannels(
            spsm: 0x81, requirement: GATTSecurityRequirement(level: .encrypted), limits: CreditBasedReceiveLimits())
        let echoing = Self.echo(listener)
        let connection = try await sides.connect()
        let channel = try await connection.openL2CAPChannel(psm: 0x81)
        try await channel.send(Array("sealed".utf8))
        var replies = channel.incoming.makeAsyncIterator()
        let reply = try await replies.next()
        let security = await connection.security()
        await channel.close()
        await connection.disconnect()
        let events = await Self.events(of: sides) { event in
            if case .disconnected = event { return true } else { return false }
        }
        await sides.close()
        echoing.cancel()
        #expect(reply == Array("sealed".utf8))
        #expect(security?.level == .encrypted)
        #expect(events.filter { if case .paired = $0 { true } else { false } }.count == 1, "events: \(events)")
    }

    @Test(.timeLimit(.minutes(2))) func aCentralThatCannotPairIsRefusedWithTheSpecsResult() async throws {
        let sides = try await Self.sides(
            name: "HaraldChan3", peripheralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()),
            centralSecurity: SecurityConfiguration(bonds: InMemoryBondStore()))
        let listener = try await sides.peripheral.serveChannels(
            spsm: 0x82, requirement: GATTSecurityRequirement(level: .authenticated), limits: CreditBasedReceiveLimits())
        let echoing = Self.echo(listener)
        let connection = try await sides.connect()
        // Both sides have no input or output: Just Works cannot give the authenticated link asked for.
        let error = await #expect(throws: BluetoothError.self) { try await connection.openL2CAPChannel(psm: 0x82) }
        await connection.disconnect()
        await sides.close()
        echoing.cancel()
        switch error {
        case .channelRefused(.insufficientAuthentication)?, .securityNotRaised?, .pairingFailed?: break
        default: Issue.record("expected a refusal for authentication, got \(String(describing: error))")
        }
    }
}
