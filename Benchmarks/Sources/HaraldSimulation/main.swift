// Engine benchmarks on the simulator (issue 4), run by `scripts/bench` after the decoding
// benchmarks; prints one JSON object that the script stores under "simulation" in
// bench-results.json.
//
// 1. Protocol cost: connect, discover everything, read every readable value (Read Long) on each
//    virtual peripheral at ATT_MTU 23 and 247: requests sent and connection events, next to the
//    fewest requests the procedures allow for that attribute layout and those value lengths.
// 2. Fan-in: 100 streaming sensors × 50 Hz notifications for 60 virtual seconds into one
//    central, subscribed through the public API; process CPU time for the whole run.
//
// The notification path (per-notification ns and allocations) is an ordo-one benchmark in
// HaraldDecode (`Notification/…`), because it needs the malloc counter.

import Foundation
import Harald
import HaraldATT
import HaraldSimulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process CPU time (user + system, all threads), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

struct ProtocolCost: Codable {
    var device: String
    var mtu: Int
    var requests: Int
    var minimumRequests: Int
    var discoveryRequests: Int
    var minimumDiscoveryRequests: Int
    var readRequests: Int
    var minimumReadRequests: Int
    var readableValues: Int
    var refusedReads: Int
    var connectionEventsWithData: Int
    var connectionEventsElapsed: Int
    var virtualSeconds: Double
}

func protocolCost(of device: VirtualPeripheral, maximumMTU: Int) throws -> ProtocolCost {
    let simulation = Simulation()
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: LinkParameters(maximumATTMTU: maximumMTU))
    return try simulation.run {
        let start = simulation.clock.now
        _ = try await simulator.backend.connect(to: device.identifier, timeout: .seconds(5))
        let connection = simulator.connection(to: device.address)!
        let client = connection.client
        var readable: [UInt16] = []
        for service in try await client.discoverPrimaryServices() {
            for characteristic in try await client.discoverCharacteristics(of: service) {
                _ = try await client.discoverDescriptors(of: characteristic)
                if characteristic.properties.contains(.read) { readable.append(characteristic.valueHandle) }
            }
        }
        let mtu = await client.mtu
        let discovery = await client.counters.roundTrips.values.reduce(0, +)
        // Read Long stops at the first response shorter than ATT_MTU − 1 bytes, so a value of L
        // bytes needs ⌊L / (MTU − 1)⌋ + 1 requests at the least.
        var minimumReads = 0
        var refusedReads = 0
        for handle in readable {
            do {
                let value = try await client.readLong(handle: handle)
                minimumReads += value.count / (mtu - 1) + 1
            } catch let error as GATTError {
                guard case .attribute = error else { throw error }
                // Readable but refused (the band's values before authentication): one request.
                minimumReads += 1
                refusedReads += 1
            }
        }
        let total = await client.counters.roundTrips.values.reduce(0, +)
        let minimum = await simulator.runtime(of: device.address)!.minimumDiscoveryCost(mtu: mtu)
        let statistics = await connection.statistics
        let elapsed = start.duration(to: simulation.clock.now)
        return ProtocolCost(
            device: device.name ?? "\(device.address)", mtu: mtu, requests: total, minimumRequests: minimum.total + minimumReads,
            discoveryRequests: discovery, minimumDiscoveryRequests: minimum.total, readRequests: total - discovery,
            minimumReadRequests: minimumReads, readableValues: readable.count, refusedReads: refusedReads,
            connectionEventsWithData: statistics.eventsWithData, connectionEventsElapsed: statistics.eventsElapsed,
            virtualSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}

struct FanIn: Codable {
    var peripherals: Int
    var rateHz: Int
    var virtualSeconds: Int
    var notificationsExpected: Int
    var notificationsReceived: Int
    var cpuSeconds: Double
    var wallSeconds: Double
    var goalCPUSeconds: Double
}

func fanIn(peripherals: Int = 100, rateHz: Int = 50, seconds: Int = 60) throws -> FanIn {
    let simulation = Simulation()
    let sensors = (1...peripherals).map { VirtualPeripheral.streamingSensor(number: $0, interval: .milliseconds(1000 / rateHz)) }
    let simulator = try Simulator(clock: simulation.clock, devices: sensors)
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    let perSensor = rateHz * seconds
    let cpuStart = processCPUSeconds()
    let wallStart = Date()
    let counts = try simulation.run {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for sensor in sensors {
                group.addTask {
                    let connection = try await central.connect(to: sensor.identifier, timeout: .seconds(5))
                    let samples = try await connection.subscribe(VirtualPeripheral.StreamingSensor.samples, buffering: .oldest(1000))
                    var received = 0
                    for try await _ in samples {
                        received += 1
                        if received == perSensor { break }
                    }
                    await connection.disconnect()
                    return received
                }
            }
            return try await group.reduce(0, +)
        }
    }
    return FanIn(
        peripherals: peripherals, rateHz: rateHz, virtualSeconds: seconds, notificationsExpected: peripherals * perSensor,
        notificationsReceived: counts, cpuSeconds: processCPUSeconds() - cpuStart,
        wallSeconds: Date().timeIntervalSince(wallStart), goalCPUSeconds: 1)
}

struct Report: Codable {
    var protocolCost: [ProtocolCost]
    var fanIn: FanIn
}

let devices: [VirtualPeripheral] = [.heartRateStrap(), .actionCamera(), .fitnessBand()]
var costs: [ProtocolCost] = []
for device in devices {
    for mtu in [23, 247] { costs.append(try protocolCost(of: device, maximumMTU: mtu)) }
}
let report = Report(protocolCost: costs, fanIn: try fanIn())
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
print(String(decoding: try encoder.encode(report), as: UTF8.self))
