import Harald
import HaraldCodec
import HaraldCore
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSimulator
import Testing

/// A served device that notifies faster than its link can carry: `notify` waits for room in the
/// link's transmit buffer (a few packets), so a fast producer is slowed to the link's pace and
/// nothing queues up without bound; every value still arrives, in order.
@Suite("Served notifications are paced by the link")
struct ServedNotificationPacingTests {
    @Test func aProducerFasterThanTheLinkIsSlowedToItsPaceAndLosesNothing() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let link = LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 2, transmitBufferPackets: 4)
        let count = 120
        let (received, elapsed, sentTo) = try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [], link: link)
            let device = try HeartRateMonitorDevice()
            let address = BluetoothAddress("C2:00:00:00:00:02", kind: .random)!
            let served = try await ServedPeripheral.start(device.definition, on: simulator.peripheralBackend(at: address))
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: address), timeout: .seconds(5))
            let subscription = try await connection.subscribe(.heartRateMeasurement, buffering: .lossless(limit: count))
            let result = try await withThrowingTaskGroup(of: (rates: [UInt16], elapsed: Duration, sent: Int)?.self) { group in
                group.addTask {
                    let start = clock.now
                    var sent = 0
                    for index in 0..<count {
                        sent += try await served.notify(.heartRateMeasurement, HeartRateMeasurement(heartRate: UInt16(60 + index % 100)))
                    }
                    return ([], start.duration(to: clock.now), sent)
                }
                group.addTask {
                    var rates: [UInt16] = []
                    for try await measurement in subscription {
                        rates.append(measurement.heartRate)
                        if rates.count == count { break }
                    }
                    return (rates, .zero, 0)
                }
                var rates: [UInt16] = []
                var elapsed = Duration.zero
                var sent = 0
                while let next = try await group.next() {
                    if let next, next.rates.isEmpty { (elapsed, sent) = (next.elapsed, next.sent) } else if let next { rates = next.rates }
                }
                return (rates, elapsed, sent)
            }
            await connection.disconnect()
            await served.stop()
            return result
        }
        #expect(sentTo == count)
        #expect(received == (0..<count).map { UInt16(60 + $0 % 100) })
        // Two packets an event every 30 ms: the producer cannot finish before the link has carried
        // all but the buffered few.
        let floor = link.connectionInterval * ((count - link.transmitBufferPackets) / link.packetsPerEvent - 1)
        #expect(elapsed >= floor, "elapsed \(elapsed), the link needs at least \(floor)")
    }
}
