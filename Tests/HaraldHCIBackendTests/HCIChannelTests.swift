import Harald
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldL2CAP
import HaraldTestSupport
import Testing

/// Connection-oriented channels through the public API over the HCI host, against an in-process
/// controller whose peer runs its own credit-based engine (echoing what it receives).
@Suite("L2CAP channels over HCI")
struct HCIChannelTests {
    /// A central over a virtual controller with one peer serving SPSM 0x80 with `limits`.
    static func setUp(
        limits: CreditBasedReceiveLimits = CreditBasedReceiveLimits(), refusal: CreditBasedConnectionResult? = nil, echoes: Bool = true,
        configuration: VirtualController.Configuration = VirtualController.Configuration()
    ) async throws -> (VirtualController, HCICentralBackend, Central, PeripheralIdentifier) {
        let peripheral = try ScenarioPeripheral()
        var peer = peripheral.virtualPeer
        peer.channelServers = [CreditBasedChannels.Server(spsm: 0x80, limits: limits)]
        peer.channelRefusal = refusal
        peer.echoesChannelSDUs = echoes
        let controller = VirtualController(peers: [peer], configuration: configuration)
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock())
        return (controller, backend, Central(backend: backend, clock: ManualClock()), PeripheralIdentifier(address: peripheral.address))
    }

    @Test func sdusSentOnAChannelComeBackWholeFromAnEchoingPeer() async throws {
        let (controller, backend, central, peripheral) = try await Self.setUp(limits: CreditBasedReceiveLimits(mtu: 1000, mps: 100))
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: peripheral)
            let channel = try await connection.openL2CAPChannel(psm: 0x80, options: L2CAPChannelOptions(mtu: 1000, mps: 60))
            #expect(channel.peerMTU == 1000 && channel.mtu == 1000)
            let sdus = (0..<20).map { index in (0..<(index * 50)).map { UInt8(truncatingIfNeeded: $0 &+ index) } }
            var iterator = channel.incoming.makeAsyncIterator()
            for sdu in sdus {
                try await channel.send(sdu)
                #expect(try await iterator.next() == sdu)
            }
            #expect(controller.channelSDUs == sdus)
            await channel.close()
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func anUnservedPSMIsRefusedWithPSMNotSupported() async throws {
        let (_, backend, central, peripheral) = try await Self.setUp()
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: peripheral)
            await #expect(throws: BluetoothError.channelRefused(.psmNotSupported)) { try await connection.openL2CAPChannel(psm: 0x81) }
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func thePeersRefusalReachesTheAppWithItsResult() async throws {
        let (_, backend, central, peripheral) = try await Self.setUp(refusal: .insufficientAuthorization)
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: peripheral)
            await #expect(throws: BluetoothError.channelRefused(.insufficientAuthorization)) { try await connection.openL2CAPChannel(psm: 0x80) }
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func closingAChannelClosesItAtThePeer() async throws {
        let (controller, backend, central, peripheral) = try await Self.setUp()
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: peripheral)
            let channel = try await connection.openL2CAPChannel(psm: 0x80)
            await channel.close()
            await until { controller.channelEvents.contains { if case .closed(_, .closedByPeer) = $0 { true } else { false } } }
            await #expect(throws: BluetoothError.channelClosed(.localRequest)) { try await channel.send([1]) }
            #expect(await channel.closeReason() == .localRequest)
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func losingTheLinkEndsTheChannelsReaderAndFailsItsSends() async throws {
        let (controller, backend, central, peripheral) = try await Self.setUp(echoes: false)
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: peripheral)
            let channel = try await connection.openL2CAPChannel(psm: 0x80)
            let reader = Task { () async throws -> Int in
                var count = 0
                for try await _ in channel.incoming { count += 1 }
                return count
            }
            controller.disconnectFromPeripheral(try #require(peripheral.address))
            #expect(try await reader.value == 0)
            #expect(await channel.closeReason() == .linkLost)
            await #expect(throws: BluetoothError.channelClosed(.linkLost)) { try await channel.send([1]) }
        }
        await backend.close()
    }

    @Test func aMebibyteCrossesSmallControllerBuffersIntactBothWays() async throws {
        var configuration = VirtualController.Configuration()
        configuration.aclDataLength = 27
        let (controller, backend, central, peripheral) = try await Self.setUp(
            limits: CreditBasedReceiveLimits(mtu: 4096, mps: 247, bufferCapacity: 16 * 1024), configuration: configuration)
        try await withHangGuard(seconds: 300) {
            let connection = try await central.connect(to: peripheral)
            let channel = try await connection.openL2CAPChannel(psm: 0x80, options: L2CAPChannelOptions(mtu: 4096, mps: 247, receiveBuffer: 16 * 1024))
            let data = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }
            let reader = Task { () async throws -> [UInt8] in
                var received: [UInt8] = []
                for try await sdu in channel.incoming {
                    received += sdu
                    if received.count >= data.count { break }
                }
                return received
            }
            try await channel.write(data)
            #expect(try await reader.value == data)
            #expect(controller.channelSDUs.reduce(0) { $0 + $1.count } == data.count)
            await channel.close()
            await connection.disconnect()
        }
        await backend.close()
    }
}

/// Waits (yielding) until `condition` holds, for at most about ten thousand turns.
private func until(_ condition: @Sendable () -> Bool) async {
    for _ in 0..<10_000 where !condition() { await Task.yield() }
}
