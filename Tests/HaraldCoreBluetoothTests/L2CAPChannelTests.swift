import Foundation
import Harald
import HaraldCore
import HaraldCoreBluetooth
import Testing

@Suite("CoreBluetooth backend: L2CAP channels a central opens", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct L2CAPChannelTests {
    let timeout = Duration.seconds(10)
    let psm = L2CAPPSM(0x0080)

    func connect(_ world: FakeWorld) async throws -> any ConnectionBackend {
        try await world.backend.connect(to: world.identifier, timeout: timeout)
    }

    /// Opens a channel on `psm` and returns it with the fake's end of it.
    func open(_ world: FakeWorld, options: L2CAPChannelOptions = L2CAPChannelOptions()) async throws -> (StreamChannel, FakeL2CAPChannel) {
        let connection = try await connect(world)
        let channel = try await connection.openL2CAPChannel(psm: psm, options: options, timeout: timeout)
        let fake = try #require(world.peripheral.lastOpenedChannel)
        return (try #require(channel as? StreamChannel), fake)
    }

    @Test func anOpenChannelCarriesBytesBothWaysThroughItsStreams() async throws {
        let world = FakeWorld.make()
        let (channel, fake) = try await open(world)
        #expect(world.peripheral.received.last == .openL2CAPChannel(0x0080))
        #expect(channel.psm == psm)
        #expect(channel.mtu == nil && channel.peerMTU == nil, "CoreBluetooth does not say the MTUs")
        fake.incoming.peerSends([1, 2, 3])
        let received = try await channel.receive()
        #expect(received == [1, 2, 3])
        try await channel.send(received ?? [])
        #expect(fake.outgoing.peerTakes() == [1, 2, 3])
    }

    @Test func aSendLongerThanTheStreamsRoomWaitsForRoomAndWritesEveryByte() async throws {
        let world = FakeWorld.make()
        let (channel, fake) = try await open(world)
        let bytes = (0..<2_000).map { UInt8($0 & 0xFF) }
        let send = Task { try await channel.send(bytes) }
        var taken: [UInt8] = []
        while taken.count < bytes.count {
            taken += fake.outgoing.peerTakes()
            await Task.yield()
        }
        try await send.value
        #expect(taken == bytes)
    }

    @Test func aSecondOpenWaitsUntilTheFirstIsAnswered() async throws {
        let world = FakeWorld.make()
        world.peripheral.channelAnswers[0x0080] = .silent
        let connection = try await connect(world)
        // async let: a test that fails here ends at its time limit, which cancels the opens.
        async let first = connection.openL2CAPChannel(psm: 0x0080, options: L2CAPChannelOptions(), timeout: timeout)
        await until { world.peripheral.received.contains(.openL2CAPChannel(0x0080)) }
        async let second = connection.openL2CAPChannel(psm: 0x0081, options: L2CAPChannelOptions(), timeout: timeout)
        await world.central.system.settle()
        await until { world.backend.pendingOperationCount == 2 }
        #expect(!world.peripheral.received.contains(.openL2CAPChannel(0x0081)), "the answer names no PSM: one open at a time")
        world.peripheral.deliverChannel(psm: 0x0080)
        #expect(try await first.psm == 0x0080)
        #expect(try await second.psm == 0x0081)
        #expect(world.peripheral.received.filter { if case .openL2CAPChannel = $0 { true } else { false } }.count == 2)
    }

    @Test func anOpenWithNoAnswerTimesOutAndItsLateChannelIsClosed() async throws {
        let world = FakeWorld.make()
        world.peripheral.channelAnswers[0x0080] = .silent
        let connection = try await connect(world)
        async let open = connection.openL2CAPChannel(psm: 0x0080, options: L2CAPChannelOptions(), timeout: .seconds(5))
        await until { world.peripheral.received.contains(.openL2CAPChannel(0x0080)) }
        await waitForSleepers(world.clock)
        world.clock.advance(by: .seconds(5))
        var failure: (any Error)?
        do { _ = try await open } catch { failure = error }
        #expect(failure as? BluetoothError == .timeout(operation: "opening an L2CAP channel on PSM 0x0080", after: .seconds(5)))
        let late = world.peripheral.deliverChannel(psm: 0x0080)
        #expect(late.isClosed, "a channel nobody waits for is closed, not leaked")
        #expect(world.backend.openChannelCount(on: world.identifier) == 0)
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func aDisconnectionFailsTheOpenInFlight() async throws {
        let world = FakeWorld.make()
        world.peripheral.channelAnswers[0x0080] = .silent
        let connection = try await connect(world)
        async let open = connection.openL2CAPChannel(psm: 0x0080, options: L2CAPChannelOptions(), timeout: timeout)
        await until { world.peripheral.received.contains(.openL2CAPChannel(0x0080)) }
        world.central.dropConnection(world.peripheral)
        var failure: (any Error)?
        do { _ = try await open } catch { failure = error }
        #expect(failure as? BluetoothError == .disconnected(.remoteRequest))
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func aFailedOpenThrowsTheMappedError() async throws {
        let world = FakeWorld.make()
        world.peripheral.channelAnswers[0x0080] = .fail(cbError(7))
        let connection = try await connect(world)
        await #expect(throws: BluetoothError.disconnected(.remoteRequest)) {
            _ = try await connection.openL2CAPChannel(psm: 0x0080, options: L2CAPChannelOptions(), timeout: timeout)
        }
    }

    @Test func aSlowReaderHoldsAtMostTheReceiveBufferAndLeavesTheRestInTheStream() async throws {
        let world = FakeWorld.make()
        let (channel, fake) = try await open(world, options: L2CAPChannelOptions(receiveBuffer: 1_000))
        fake.incoming.peerSends([UInt8](repeating: 7, count: 10_000))
        await until { channel.bufferedByteCount >= 1_000 }
        #expect(fake.incoming.unread == 9_000, "what the reader has no room for stays with CoreBluetooth, whose credits stop the peer")
        var total = 0
        while total < 10_000 {
            total += try await channel.receive()?.count ?? 0
        }
        #expect(total == 10_000)
        #expect(channel.bufferedHighWater <= 1_000)
    }

    @Test func aPeerThatClosesEndsTheChannelAfterTheBufferedBytes() async throws {
        let world = FakeWorld.make()
        let (channel, fake) = try await open(world)
        fake.incoming.peerSends([9, 9])
        fake.incoming.peerCloses()
        await until { fake.isClosed }
        #expect(try await channel.receive() == [9, 9])
        #expect(try await channel.receive() == nil)
        #expect(await channel.closeReason() == .remoteRequest)
    }

    @Test func aSendAfterCloseThrowsChannelClosed() async throws {
        let world = FakeWorld.make()
        let (channel, fake) = try await open(world)
        await channel.close()
        #expect(fake.isClosed, "closing closes both streams")
        await #expect(throws: BluetoothError.channelClosed(.localRequest)) { try await channel.send([1]) }
        #expect(try await channel.receive() == nil)
    }

    @Test func aSendWaitingForRoomFailsWhenTheLinkGoes() async throws {
        let world = FakeWorld.make()
        let (channel, _) = try await open(world)
        let send = Task { try await channel.send([UInt8](repeating: 1, count: 4_000)) }
        await until { channel.pendingCallCount == 1 }
        world.central.dropConnection(world.peripheral)
        await #expect(throws: BluetoothError.channelClosed(.linkLost)) { try await send.value }
        #expect(world.backend.openChannelCount(on: world.identifier) == 0)
    }
}
