import Foundation
import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldTestSupport
import Testing

/// Where scripts/integration put Bumble's credit-based channel servers (scripts/bumble/l2cap_peer.py).
enum L2CAPBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_L2CAP_TRANSPORT"] }
    static let address = BluetoothAddress("C0:00:00:00:00:4C", kind: .random)!
    static let echo: L2CAPPSM = 0x80
    static let sink: L2CAPPSM = 0x81
    static let source: L2CAPPSM = 0x82
}

/// Harald's credit-based channels over the HCI host against Bumble's own L2CAP channel manager:
/// both flow control modes, SDUs both ways, Bumble's credits and segmentation against ours.
@Suite(
    "Bumble integration: L2CAP credit-based channels", .serialized,
    .enabled(if: L2CAPBench.transport != nil, "set HARALD_L2CAP_TRANSPORT (run scripts/integration)"))
struct L2CAPChannelBumbleIntegrationTests {
    /// Connects to the Bumble peer and runs `body`; closes everything afterwards, also on failure.
    func withPeer(_ body: @escaping @Sendable (PeripheralConnection) async throws -> Void) async throws {
        let transport = try #require(L2CAPBench.transport)
        let backend = try await HCICentralBackend.open(transport: transport)
        do {
            try await withHangGuard(seconds: 120) {
                let central = Central(backend: backend, defaultTimeout: .seconds(20))
                let connection = try await central.connect(to: PeripheralIdentifier(address: L2CAPBench.address))
                try await body(connection)
                await connection.disconnect()
            }
        } catch {
            await backend.close()
            throw error
        }
        await backend.close()
    }

    @Test(arguments: [L2CAPChannelMode.leCreditBased, .enhancedCreditBased])
    func bumbleEchoesEverySDUWhole(mode: L2CAPChannelMode) async throws {
        try await withPeer { connection in
            let channel = try await connection.openL2CAPChannel(psm: L2CAPBench.echo, options: L2CAPChannelOptions(mode: mode, mtu: 2048, mps: 100))
            #expect(channel.peerMTU == 2048)
            var replies = channel.incoming.makeAsyncIterator()
            // Sizes around the MPS of 100 (the first K-frame carries 98 bytes of SDU). Not 0: Bumble
            // takes an empty SDU but cannot write one back (its channel asserts on empty data).
            for size in [1, 97, 98, 99, 100, 247, 1000, 2048] {
                let sdu = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ size) }
                try await channel.send(sdu)
                #expect(try await replies.next() == sdu, "an SDU of \(size) bytes")
            }
            await channel.close()
        }
    }

    @Test func aQuarterMebibyteWrittenReachesBumbleWhole() async throws {
        try await withPeer { connection in
            let channel = try await connection.openL2CAPChannel(psm: L2CAPBench.sink)
            let data = [UInt8](repeating: 0xA5, count: 256 * 1024)
            try await channel.write(data)
            try await channel.send(Array("report".utf8))
            var replies = channel.incoming.makeAsyncIterator()
            let report = try #require(try await replies.next())
            #expect(String(decoding: report, as: UTF8.self) == "\(data.count) \(data.count / 2048)")
            await channel.close()
        }
    }

    @Test func aQuarterMebibyteFromBumbleArrivesWithinOurWindowAndTheChannelThenCloses() async throws {
        try await withPeer { connection in
            // A small room: Bumble must wait for our credits again and again.
            let channel = try await connection.openL2CAPChannel(psm: L2CAPBench.source, options: L2CAPChannelOptions(mtu: 512, mps: 64, receiveBuffer: 2048))
            let count = 256 * 1024
            try await channel.send(Array("send \(count)".utf8))
            var received: [UInt8] = []
            for try await sdu in channel.incoming {
                #expect(sdu.count <= 512)
                received += sdu
            }
            #expect(received == (0..<count).map { UInt8($0 % 251) })
            #expect(await channel.closeReason() == .remoteRequest)
        }
    }

    @Test func aPSMBumbleDoesNotServeIsRefused() async throws {
        try await withPeer { connection in
            await #expect(throws: BluetoothError.channelRefused(.psmNotSupported)) { try await connection.openL2CAPChannel(psm: 0x90) }
        }
    }

    @Test func fiveChannelsAtOnceEachCarryTheirOwnData() async throws {
        try await withPeer { connection in
            var channels: [L2CAPChannel] = []
            for _ in 0..<5 {
                channels.append(try await connection.openL2CAPChannel(psm: L2CAPBench.echo, options: L2CAPChannelOptions(mode: .enhancedCreditBased)))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, channel) in channels.enumerated() {
                    group.addTask {
                        var replies = channel.incoming.makeAsyncIterator()
                        for round in 0..<20 {
                            let sdu = [UInt8](repeating: UInt8(index), count: 100 + round)
                            try await channel.send(sdu)
                            #expect(try await replies.next() == sdu)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for channel in channels { await channel.close() }
        }
    }
}
