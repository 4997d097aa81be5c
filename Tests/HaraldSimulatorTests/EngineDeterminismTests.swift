import HaraldCodec
import HaraldATT
@testable import HaraldSimulator
import Testing

/// A minimal peer on the peripheral side of a link: answers each Read Request for handle `h`
/// with the value `[h]`, and never answers reads of `silentHandle`.
private func runEchoPeer(_ bearer: SimulatedATTBearer, silentHandle: UInt16?) async {
    for await event in bearer.events {
        guard case .received(let bytes) = event, bytes.first == ATTOpcode.readRequest.rawValue, bytes.count == 3 else { continue }
        let handle = UInt16(bytes[1]) | UInt16(bytes[2]) << 8
        if handle == silentHandle { continue }
        try? await bearer.send([ATTOpcode.readResponse.rawValue, UInt8(handle & 0xFF)])
    }
}

private actor Log {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
}

@Suite("GATT engines run deterministically inside a simulation")
struct EngineDeterminismTests {
    /// Three concurrent reads over a simulated link, logged with their virtual completion times.
    private func concurrentReads() async throws -> [String] {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let peripheral = SimulatedATTBearer(link: link, side: .peripheral)
            let client = GATTClient(bearer: central, clock: clock)
            let log = Log()
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await runEchoPeer(peripheral, silentHandle: nil) }
                await withTaskGroup(of: Void.self) { reads in
                    for handle in [UInt16(3), 7, 5] {
                        reads.addTask {
                            let value = try? await client.read(handle: handle)
                            await log.add("read \(handle) -> \(value ?? []) at \(clock.now)")
                        }
                    }
                }
                await client.disconnect()
                try await group.waitForAll()
                return await log.lines
            }
        }
    }

    @Test func aClientOverASimulatedLinkProducesTheSameEventLogEveryRun() async throws {
        let first = try await concurrentReads()
        #expect(first.count == 3)
        await #expect(try concurrentReads() == first)
        await #expect(try concurrentReads() == first)
    }

    @Test func theThirtySecondTransactionTimeoutPassesInVirtualTimeAndClosesTheLink() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (error, elapsed, reason, pending, linkReason) = try await simulation.run {
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let peripheral = SimulatedATTBearer(link: link, side: .peripheral)
            // No per-operation timeout shorter than the transaction timeout.
            let client = GATTClient(bearer: central, clock: clock, configuration: .init(defaultTimeout: .seconds(60)))
            async let peer: Void = runEchoPeer(peripheral, silentHandle: 9)
            let start = clock.now
            var caught: GATTError?
            do { _ = try await client.read(handle: 9) } catch { caught = error as? GATTError }
            let elapsed = start.duration(to: clock.now)
            await peer
            return (caught, elapsed, await client.closeReason, await client.liveContinuations, await link.closedReason)
        }
        #expect(error == .timeout)
        #expect(elapsed == .seconds(30))
        #expect(reason == .transactionTimeout)
        #expect(pending == 0)
        #expect(linkReason != nil)
    }

    @Test func anUnconfirmedIndicationTimesOutInVirtualTimeAndTheServerClosesTheLink() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let (error, elapsed, linkReason, pending) = try await simulation.run {
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let central = SimulatedATTBearer(link: link, side: .central)
            let peripheral = SimulatedATTBearer(link: link, side: .peripheral)
            let server = try GATTServer(
                services: [
                    GATTServiceDefinition(
                        uuid: BluetoothUUID(0x1809),
                        characteristics: [
                            GATTCharacteristicDefinition(uuid: BluetoothUUID(0x2A1C), properties: [.indicate])
                        ])
                ],
                clock: clock, configuration: .init(defaultTimeout: .seconds(60)))
            let connection = await server.attach(peripheral)
            // A central that enables indications (CCCD at handle 4) and never confirms them.
            try await central.send([ATTOpcode.writeRequest.rawValue, 0x04, 0x00, 0x02, 0x00])
            var iterator = central.events.makeAsyncIterator()
            _ = await iterator.next()
            let start = clock.now
            var caught: GATTError?
            do { try await server.indicate(handle: 3, value: [0x01], connection: connection) } catch { caught = error as? GATTError }
            return (caught, start.duration(to: clock.now), await link.closedReason, await server.liveContinuations)
        }
        #expect(error == .timeout)
        #expect(elapsed == .seconds(30))
        #expect(linkReason != nil)
        #expect(pending == 0)
    }
}
