import Foundation
import Harald
import HaraldGoProSimulation
import HaraldMiBandSimulation
import HaraldProfiles
import HaraldSimulator
import Testing

@Suite("Flows over high-level events on the simulator")
struct FlowEventTests {
    /// The flow from `Central.flow`'s documentation: scan, connect, prepare, subscribe, take the
    /// first heart rate; every event it saw, by name.
    @Test func aHeartRateFlowSeesEventsInOrderAndLeavesNothingConnected() throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera(), .fitnessBand()])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let (rate, seen, open) = try simulation.run(timeLimit: .seconds(120)) { () -> (UInt16, [String], Int) in
            var seen: [String] = []
            let rate = try await central.flow { context -> UInt16 in
                for await event in context.events {
                    switch event {
                    case .poweredOn:
                        seen.append("poweredOn")
                        context.startScan(ScanRequest(services: [ServiceSpec.heartRate.uuid]))
                    case .scanStarted:
                        seen.append("scanStarted")
                    case let .discovered(advertisement):
                        seen.append("discovered \(advertisement.localName ?? "?")")
                        context.stopScan()
                        context.connect(to: advertisement)
                    case .scanStopped:
                        seen.append("scanStopped")
                    case let .connected(connection):
                        seen.append("connected")
                        context.prepare(connection, services: [.heartRate])
                    case let .ready(connection):
                        seen.append("ready")
                        context.subscribe(connection, to: .heartRateMeasurement)
                    case let .received(_, characteristic, bytes):
                        seen.append("received \(characteristic)")
                        return try HeartRateMeasurement(decoding: bytes).heartRate
                    default:
                        seen.append("other \(event)")
                    }
                }
                throw CancellationError()
            }
            var open = 0
            for connection in simulator.connections where await connection.link.closedReason == nil { open += 1 }
            return (rate, seen, open)
        }
        #expect(rate == 72)
        #expect(seen.prefix(3) == ["poweredOn", "scanStarted", "discovered Harald HR"])
        #expect(seen.suffix(3) == ["connected", "ready", "received 2A37"])
        #expect(seen.contains("scanStopped"))
        #expect(open == 0)
    }

    /// Two flows one after the other: the second must not see anything the first started.
    @Test func aFollowingFlowNeverSeesTheFirstFlowsEvents() throws {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera(), .fitnessBand()])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let second = try simulation.run(timeLimit: .seconds(120)) { () -> [String] in
            // The first flow starts a scan and a subscription and leaves while they still run.
            try await central.flow { context in
                for await event in context.events {
                    if case .poweredOn = event { context.startScan() }
                    if case let .discovered(advertisement) = event, advertisement.localName == "Harald HR" {
                        context.connect(to: advertisement)
                    }
                    if case let .connected(connection) = event {
                        context.subscribe(connection, to: .heartRateMeasurement)
                        return
                    }
                }
            }
            // The second only listens for five virtual seconds and records what it is told.
            let log = EventNames()
            try await central.flow { context in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { try? await central.clock.sleep(for: .seconds(5)) }
                    group.addTask {
                        for await event in context.events {
                            if case .poweredOn = event { continue }
                            await log.add("\(event)")
                        }
                    }
                    await group.next()
                    group.cancelAll()
                }
            }
            let seen = await log.all
            return seen
        }
        #expect(second.isEmpty)
    }
}

private actor EventNames {
    var all: [String] = []
    func add(_ name: String) { all.append(name) }
}
