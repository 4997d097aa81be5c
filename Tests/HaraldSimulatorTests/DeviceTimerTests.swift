import Harald
import HaraldCore
import HaraldSimulator
import Testing

/// A device that ticks like a hardware timer (`PeripheralSession.repeating(every:_:)`) and
/// notifies without waiting (`notifyWithoutWaiting`).
@Suite("Simulated devices: timer ticks and notifications that never wait")
struct DeviceTimerTests {
    @Test func aSensorTickingEvery20msDeliversOneValuePerTickAtOneExecutorJobEach() async throws {
        let simulation = Simulation()
        let sensor = VirtualPeripheral.streamingSensor(number: 1, interval: .milliseconds(20))
        let simulator = try Simulator(clock: simulation.clock, devices: [sensor])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (connection, samples) = try await simulation.run {
            let connection = try await central.connect(to: sensor.identifier, timeout: .seconds(5))
            return (connection, try await connection.subscribe(VirtualPeripheral.StreamingSensor.samples, buffering: .oldest(1000)))
        }
        let start = simulation.clock.now
        let jobs = simulation.executor.jobsRun
        let sequence = try await simulation.run {
            var numbers: [UInt32] = []
            for try await sample in samples {
                numbers.append(UInt32(sample[0]) | UInt32(sample[1]) << 8 | UInt32(sample[2]) << 16 | UInt32(sample[3]) << 24)
                if numbers.count == 200 { break }
            }
            return numbers
        }
        let jobsPerValue = Double(simulation.executor.jobsRun - jobs) / 200
        let elapsed = start.duration(to: simulation.clock.now)
        // Consecutive samples, no gaps: every tick notified, in order.
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
        // 200 ticks of 20 ms: about 4 virtual seconds (the first sample may predate the loop).
        #expect(elapsed >= .milliseconds(3_900) && elapsed <= .milliseconds(4_100))
        // The subscriber's loop resuming is the only job a value costs; the ticks cost none.
        #expect(jobsPerValue <= 1.05)
        try await simulation.run { await connection.disconnect() }
    }

    @Test func ticksStopOnceTheLinkHasClosed() async throws {
        let simulation = Simulation()
        let ticks = TickCount()
        let device = Self.ticker(address: "C0:00:00:00:00:7A") {
            ticks.add()
            return true
        }
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let whileOpen = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            try await simulation.clock.sleep(for: .milliseconds(105))
            let counted = ticks.value
            await connection.disconnect()
            return counted
        }
        #expect(whileOpen >= 9 && whileOpen <= 11)
        let atClose = ticks.value
        try await simulation.run { try await simulation.clock.sleep(for: .seconds(1)) }
        #expect(ticks.value <= atClose + 1)  // at most a tick already due when the link closed
    }

    @Test func aTickThatReturnsFalseIsTheLast() async throws {
        let simulation = Simulation()
        let ticks = TickCount()
        let device = Self.ticker(address: "C0:00:00:00:00:7B") {
            ticks.add()
            return ticks.value < 3
        }
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            try await simulation.clock.sleep(for: .seconds(1))
            await connection.disconnect()
        }
        #expect(ticks.value == 3)
    }
}

extension DeviceTimerTests {
    /// A device with no services whose connection script ticks `tick` every 10 ms.
    static func ticker(address: String, tick: @escaping @Sendable () -> Bool) -> VirtualPeripheral {
        VirtualPeripheral(address: BluetoothAddress(address, kind: .random)!, advertisingData: .device(name: "Ticker")) { _ in
            PeripheralBehaviour(definition: PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Ticker"), services: [])) { session in
                session.repeating(every: .milliseconds(10), tick)
            }
        }
    }
}

/// A counter the device's ticks share with the test.
final class TickCount: Sendable {
    private let count = Locked(0)
    var value: Int { count.value }
    func add() { count.withLock { $0 += 1 } }
}
