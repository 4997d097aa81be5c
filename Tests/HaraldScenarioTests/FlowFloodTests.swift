import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldSimulator
import Testing

/// A virtual sensor that, when `01` is written to its control point, notifies `count` numbered
/// values as fast as the link carries them and then drops the link (a connection timeout).
private enum FloodingSensor {
    static let address = BluetoothAddress("C0:DE:00:00:00:F1", kind: .random)!
    static let service = BluetoothUUID(0xFFD0)
    static let start = Characteristic<UInt8, Write>(BluetoothUUID(0xFFD1), service: service)
    static let values = Characteristic<UInt32, Notify>(BluetoothUUID(0xFFD2), service: service)

    static func device(count: Int) -> VirtualPeripheral {
        VirtualPeripheral(address: address, advertisingData: .device(name: "Flood", services: [service])) { _ in
            let started = Locked(false)
            return PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: start.uuid, properties: [.write], onWrite: { _, _ in started.withLock { $0 = true } }),
                        GATTCharacteristicDefinition(uuid: values.uuid, properties: [.notify]),
                    ])
            ]) { session in
                while await session.sleep(for: .milliseconds(10)) {
                    // Each start request floods once (a reconnection writes it again).
                    guard
                        started.withLock({ started in
                            defer { started = false }; return started
                        })
                    else { continue }
                    for index in 0..<count {
                        let value = UInt32(index)
                        await session.notify(values.uuid, [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) })
                    }
                    // Let the link carry the flood, then walk away.
                    _ = await session.sleep(for: .seconds(60))
                    await session.link.close(reason: .connectionTimeout)
                    return
                }
            }
        }
    }
}

/// A transfer whose app is busy while the sensor floods: it takes no value until the link is
/// gone, so every value beyond the subscription's buffer is dropped before it reads.
private struct BusyTransfer: RecordTransfer {
    let buffering: UpdateBuffering
    /// The subscription's drop count, recorded when the transfer ends.
    let dropped: Locked<Int>

    func recordCount(from index: Int, over connection: PeripheralConnection) async throws -> Int? { nil }

    func fetchRecords(from index: Int, over connection: PeripheralConnection, deliver: (UInt32) async throws -> Void) async throws {
        let values = try await connection.subscribe(FloodingSensor.values, buffering: buffering)
        defer { dropped.withLock { $0 += values.droppedCount } }
        try await connection.write(UInt8(1), to: FloodingSensor.start)
        _ = await connection.disconnection()
        for try await value in values { try await deliver(value) }
    }
}

@Suite("Flows under a flood of values")
struct FlowFloodTests {
    private struct Outcome: Sendable {
        var error: (any Error)?
        var received: Int
        var reconnections: Int
        var dropped: Int
    }

    private func flood(count: Int, buffering: UpdateBuffering, policy: ReconnectPolicy) async throws -> Outcome {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [FloodingSensor.device(count: count)])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let dropped = Locked(0)
        let progress = Locked<(received: Int, reconnections: Int)>((0, 0))
        return try await simulation.run(timeLimit: .seconds(3600)) {
            let flow = SynchronizationFlow(
                central: central, peripheral: PeripheralIdentifier(address: FloodingSensor.address),
                transfer: BusyTransfer(buffering: buffering, dropped: dropped), reconnect: policy)
            var error: (any Error)?
            do {
                _ = try await flow.run { step in
                    progress.withLock { progress in
                        switch step {
                        case .received: progress.received += 1
                        case .reconnecting: progress.reconnections += 1
                        default: break
                        }
                    }
                }
            } catch let failure { error = failure }
            let (received, reconnections) = progress.value
            return Outcome(error: error, received: received, reconnections: reconnections, dropped: dropped.value)
        }
    }

    @Test(arguments: [UpdateBuffering.oldest(64), .newest(64)])
    func aFlowFloodedPastItsBufferStillSeesTheDisconnection(buffering: UpdateBuffering) async throws {
        let outcome = try await flood(count: 5_000, buffering: buffering, policy: .never)
        guard case .disconnected? = outcome.error as? BluetoothError else {
            Issue.record("the flow ended with \(String(describing: outcome.error)), not the disconnection")
            return
        }
        #expect(outcome.received == 64)
        #expect(outcome.dropped == 5_000 - 64)
    }

    @Test func anUnboundedFlowTakesEveryFloodedValueAndThenSeesTheDisconnection() async throws {
        let outcome = try await flood(count: 5_000, buffering: .unbounded, policy: .never)
        guard case .disconnected? = outcome.error as? BluetoothError else {
            Issue.record("the flow ended with \(String(describing: outcome.error)), not the disconnection")
            return
        }
        #expect(outcome.received == 5_000)
        #expect(outcome.dropped == 0)
    }

    @Test func aFlowFloodedPastItsBufferReconnectsAfterTheDisconnection() async throws {
        let once = ReconnectPolicy(maximumAttempts: 1, initialDelay: .milliseconds(10))
        let outcome = try await flood(count: 5_000, buffering: .oldest(64), policy: once)
        // Each of the two connections is flooded and then lost: one reconnection, then the end.
        #expect(outcome.reconnections == 1)
        #expect(outcome.received == 2 * 64)
        guard case .disconnected? = outcome.error as? BluetoothError else {
            Issue.record("the flow ended with \(String(describing: outcome.error)), not the disconnection")
            return
        }
    }
}
