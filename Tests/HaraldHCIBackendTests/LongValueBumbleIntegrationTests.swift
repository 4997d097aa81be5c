import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCIBackend
import HaraldTestSupport
import Testing

/// Where scripts/integration put the long-value bench: a Bumble peer serving one 512-byte
/// characteristic, on a controller pair of its own so no other suite touches it.
enum LongValueBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_LONG_TRANSPORT"] }
    /// The long-value peer's static random address (scripts/integration gives it this one).
    static let address = BluetoothAddress("C0:00:00:00:00:09", kind: .random)!
    static let service: BluetoothUUID = "6E40A000-3C1D-4B2A-9F3E-48415241C000"
    static let value: BluetoothUUID = "6E40A001-3C1D-4B2A-9F3E-48415241C000"
    /// The value the peer starts with (scripts/bumble/peer.py `long`).
    static let initial = (0..<512).map { UInt8($0 % 256) }
}

/// Harald's GATT client over the HCI host stack against Bumble's GATT server, at the default
/// ATT_MTU of 23: a 512-byte value needs a Read followed by Read Blob requests, and a write of it
/// needs Prepare Write requests and an Execute Write. Each step's request count is the fewest the
/// procedure allows, which shows the value really went in MTU-sized pieces.
@Suite(
    "Bumble integration: long values at ATT_MTU 23 over the HCI backend", .serialized,
    .enabled(if: LongValueBench.transport != nil, "set HARALD_LONG_TRANSPORT (run scripts/integration)"))
struct LongValueBumbleIntegrationTests {
    /// Connects with a local ATT_MTU of 23 (so the exchange settles on 23), finds the long value
    /// and runs `body`; disconnects and closes the host afterwards, also on failure.
    func withLongValue(
        _ body: @escaping @Sendable (PeripheralConnection, DiscoveredCharacteristic) async throws -> Void
    ) async throws {
        let transport = try #require(LongValueBench.transport)
        let backend = try await HCICentralBackend.open(transport: transport, localMTU: 23)
        do {
            try await withHangGuard(seconds: 60) {
                let central = Central(backend: backend, defaultTimeout: .seconds(20))
                let connection = try await central.connect(to: PeripheralIdentifier(address: LongValueBench.address))
                #expect(await connection.mtu() == 23)
                let tree = try await connection.discoverAll()
                let characteristic = try #require(
                    tree.first { $0.service.uuid == LongValueBench.service }?.characteristics.first { $0.uuid == LongValueBench.value })
                try await body(connection, characteristic)
                await connection.disconnect()
            }
        } catch {
            await backend.close()
            throw error
        }
        await backend.close()
    }

    @Test func aLongReadAtMTU23ReassemblesTheValueFromReadBlobs() async throws {
        try await withLongValue { connection, characteristic in
            let before = try #require(await connection.protocolCost())
            let value = try await connection.readRaw(characteristic)
            let cost = try #require(await connection.protocolCost()) - before
            #expect(value.count == 512)
            #expect(value == LongValueBench.initial)
            // 22 bytes per response (ATT_MTU − 1): one Read, then Read Blob until a response is
            // shorter than 22 bytes: ⌊512 / 22⌋ + 1 = 24 requests.
            #expect(cost.attRequests == 24)
            #expect(cost.bytesReceived == 24 + 512)
        }
    }

    @Test func aLongWriteAtMTU23GoesAsPreparedWritesAndIsReadBack() async throws {
        try await withLongValue { connection, characteristic in
            let replacement = (0..<512).map { UInt8(255 - $0 % 256) }
            let before = try #require(await connection.protocolCost())
            try await connection.writeRaw(replacement, to: characteristic, kind: .withResponse)
            let cost = try #require(await connection.protocolCost()) - before
            // 18 bytes per Prepare Write (ATT_MTU − 5): ⌈512 / 18⌉ = 29, then one Execute Write.
            #expect(cost.attRequests == 30)
            #expect(try await connection.readRaw(characteristic) == replacement)
            try await connection.writeRaw(LongValueBench.initial, to: characteristic, kind: .withResponse)
            #expect(try await connection.readRaw(characteristic) == LongValueBench.initial)
        }
    }
}
