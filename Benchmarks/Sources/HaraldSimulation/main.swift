// Engine benchmarks on the simulator (issue 4), run by `scripts/bench` after the decoding
// benchmarks; prints one JSON object that the script stores under "simulation" in
// bench-results.json.
//
// 1. Protocol cost: connect, discover everything, read every readable value on each virtual
//    peripheral at ATT_MTU 23 and 247, two ways: with the per-service GATT procedures (one
//    characteristic discovery per service, one descriptor discovery per characteristic, Read
//    Long per value) and the way the public API does it by default (discovery sweeps, Read
//    Multiple Variable batches). Requests and connection events, each next to a minimum worked
//    out from the device's side (its GATT database and the values its server holds) and the link
//    model, never from what the client under measurement did.
// 2. Fan-in: 100 streaming sensors × 50 Hz notifications for 60 virtual seconds into one
//    central, subscribed through the public API; process CPU time for the whole run.
// 3. Stream throughput (issue 28, Throughput.swift): a mebibyte over an L2CAP credit-based
//    channel, GATT notifications and GATT writes without response, on LE 1M and LE 2M with
//    Data Length Extension, in virtual time. `HaraldSimulation --throughput` prints only these.
//
// The notification path (per-notification ns and allocations) is an ordo-one benchmark in
// HaraldDecode (`Notification/…`), because it needs the malloc counter.

import Foundation
import Harald
import HaraldATT
import HaraldGoProSimulation
import HaraldMiBandSimulation
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
    /// "per-service procedures" or "sweeps + batched reads".
    var path: String
    var requests: Int
    var minimumRequests: Int
    var discoveryRequests: Int
    var minimumDiscoveryRequests: Int
    var readRequests: Int
    var minimumReadRequests: Int
    var readableValues: Int
    /// Readable values the server refuses on this connection (asked of the server, not the client).
    var refusedReads: Int
    /// Bytes of the readable values the server holds.
    var valueBytes: Int
    var connectionEventsWithData: Int
    var minimumConnectionEvents: Int
    var connectionEventsElapsed: Int
    var virtualSeconds: Double
}

extension ProtocolCost {
    /// One row: what the client sent (`requests` round trips, `discovery` of them discovering), the
    /// minimums derived from the server's values and the link model, and the link's counts.
    init(
        device: VirtualPeripheral, mtu: Int, path: String, requests: Int, discovery: Int, minimumDiscovery: Int, minimumReads: Int,
        lengths: [Int], refused: Int, statistics: LinkStatistics, link: LinkParameters, elapsed: Duration
    ) {
        let valueBytes = lengths.reduce(0, +)
        self.init(
            device: device.name ?? "\(device.address)", mtu: mtu, path: path, requests: requests,
            minimumRequests: minimumDiscovery + minimumReads, discoveryRequests: discovery, minimumDiscoveryRequests: minimumDiscovery,
            readRequests: requests - discovery, minimumReadRequests: minimumReads, readableValues: lengths.count + refused,
            refusedReads: refused, valueBytes: valueBytes, connectionEventsWithData: statistics.eventsWithData,
            minimumConnectionEvents: HaraldSimulation.minimumConnectionEvents(
                requests: minimumDiscovery + minimumReads, readResponses: minimumReads, readValueBytes: valueBytes, link: link),
            connectionEventsElapsed: statistics.eventsElapsed, virtualSeconds: HaraldSimulation.seconds(elapsed))
    }
}

/// What the server would answer reads of `handles` with, asked of the server before the client
/// reads anything (a refused read may start pairing, which changes later answers).
func serverAnswers(_ handles: [UInt16], on connection: SimulatedConnection) async -> (lengths: [Int], refused: Int) {
    var lengths: [Int] = []
    var refused = 0
    for handle in handles {
        switch await connection.serverValue(handle: handle) {
        case .success(let value): lengths.append(value.count)
        case .failure: refused += 1
        }
    }
    return (lengths, refused)
}

/// Value handles of the readable characteristics of the device's primary services, from its
/// GATT database.
func readableHandles(_ connection: SimulatedConnection) async -> [UInt16] {
    await connection.server.database.characteristics
        .filter { $0.service.isPrimary && $0.characteristic.properties.contains(.read) }
        .map(\.characteristic.valueHandle)
}

/// Read Long of a value of `length` bytes (protocols.md D.5): a Read, then Read Blobs while the
/// answer is full (ATT_MTU − 1 bytes), so ⌊length / (MTU − 1)⌋ + 1 requests; the last one
/// comes back short, empty or refused (Attribute Not Long, Invalid Offset).
func readLongRequests(length: Int, mtu: Int) -> Int { length / (mtu - 1) + 1 }

/// A lower bound on the requests that read values of `lengths` (and learn the refusals) when
/// requests may batch them, whatever the client's strategy:
///
/// - A refused value costs a request of its own: the Error Response names one handle and
///   carries no value.
/// - No response carries more than ATT_MTU − 1 bytes after its opcode, and a value that ever
///   shares a response with others (Read Multiple Variable) carries a 2-byte length there.
/// - A value that never shares a response needs at least one response of its own; a shared
///   response holds at most ⌊(MTU − 1) / 2⌋ values (2 bytes per handle in the request).
///
/// So with s values read alone, requests ≥ max(s + ⌈(n − s) / ⌊(MTU − 1) / 2⌋⌉,
/// ⌈(Σ length + 2 (n − s)) / (MTU − 1)⌉), and the bound is the least of these over s. It leaves
/// out the Read Long rule that a value read alone ends only with a short answer, so a client
/// may not reach it.
func batchedReadRequests(lengths: [Int], refused: Int, mtu: Int) -> Int {
    let n = lengths.count
    guard n > 0 else { return refused }
    let room = mtu - 1
    let perRequest = room / 2
    let bytes = lengths.reduce(0, +)
    let fewest = (0...n).map { alone in
        let shared = n - alone
        let byCount = alone + (shared + perRequest - 1) / perRequest
        let byBytes = (bytes + 2 * shared + room - 1) / room
        return max(byCount, byBytes)
    }.min()!
    return refused + fewest
}

/// The fewest connection events with data that `requests` sequential request/response round
/// trips need in the link model of `SimulatedLink`.
///
/// The rule: a connection event has `effectivePacketsPerEvent` slots, and in a slot each side
/// sends at most one link-layer packet. A PDU is delivered when the slot of its last packet
/// ends; what the peer sends in answer goes in the first slot that starts at or after that
/// instant — later in the same event if the event has a slot left, else in the next event. ATT
/// allows one request in flight, so the round trips form one chain (request packets, then
/// response packets, then the next request's), each packet in a later slot than the one before
/// it: the chain occupies as many slots as it has packets, and the events number at least
/// ⌈slots / slots per event⌉. With single-packet PDUs that is half as many round trips per
/// event as there are slots (2 per event with the 4-packet default).
///
/// Counted packets: one per request and per response, except that the read responses together
/// carry `readValueBytes` of values plus an opcode and the 4-byte L2CAP header each, so they
/// take at least ⌈(bytes + 5 × responses) / link-layer payload⌉ packets. Discovery responses and
/// requests longer than one packet are counted as one: a lower bound.
func minimumConnectionEvents(requests: Int, readResponses: Int, readValueBytes: Int, link: LinkParameters) -> Int {
    let readPackets = max(readResponses, (readValueBytes + 5 * readResponses + link.linkLayerPayload - 1) / link.linkLayerPayload)
    let slots = requests + (requests - readResponses) + readPackets
    let perEvent = link.effectivePacketsPerEvent
    return (slots + perEvent - 1) / perEvent
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Per-service GATT procedures straight on the GATT client.
func perServiceCost(of device: VirtualPeripheral, maximumMTU: Int) throws -> ProtocolCost {
    let simulation = Simulation()
    let link = LinkParameters(maximumATTMTU: maximumMTU)
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
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
        let discovery = await client.counters.totalRoundTrips
        let (lengths, refused) = await serverAnswers(await readableHandles(connection), on: connection)
        let minimumReads = refused + lengths.map { readLongRequests(length: $0, mtu: mtu) }.reduce(0, +)
        for handle in readable {
            do { _ = try await client.readLong(handle: handle) } catch let error as GATTError {
                // Readable but refused (the camera's Wi-Fi name before pairing): one request.
                guard case .attribute = error else { throw error }
            }
        }
        let total = await client.counters.totalRoundTrips
        let minimumDiscovery = await simulator.runtime(of: device.address)!.minimumDiscoveryCost(mtu: mtu).total
        return ProtocolCost(
            device: device, mtu: mtu, path: "per-service procedures", requests: total, discovery: discovery, minimumDiscovery: minimumDiscovery,
            minimumReads: minimumReads, lengths: lengths, refused: refused, statistics: await connection.statistics, link: link,
            elapsed: start.duration(to: simulation.clock.now))
    }
}

/// The public API's default path: `discoverAll` (one Read By Type sweep over all services),
/// `discoverDescriptors(ofAll:)` (one Find Information sweep), `readRawValues(of:)` (Read
/// Multiple Variable batches).
func sweepAndBatchCost(of device: VirtualPeripheral, maximumMTU: Int) throws -> ProtocolCost {
    let simulation = Simulation()
    let link = LinkParameters(maximumATTMTU: maximumMTU)
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try simulation.run {
        let start = simulation.clock.now
        let peripheral = try await central.connect(to: device.identifier, timeout: .seconds(5))
        let connection = simulator.connection(to: device.address)!
        let client = connection.client
        let characteristics = try await peripheral.discoverAll().flatMap(\.characteristics)
        _ = try await peripheral.discoverDescriptors(ofAll: characteristics)
        let mtu = await client.mtu
        let discovery = await client.counters.totalRoundTrips
        let (lengths, refused) = await serverAnswers(await readableHandles(connection), on: connection)
        let minimumReads = batchedReadRequests(lengths: lengths, refused: refused, mtu: mtu)
        _ = try await peripheral.readRawValues(of: characteristics.filter { $0.properties.contains(.read) })
        let total = await client.counters.totalRoundTrips
        let minimumDiscovery = await simulator.runtime(of: device.address)!.minimumSweepDiscoveryCost(mtu: mtu).total
        return ProtocolCost(
            device: device, mtu: mtu, path: "sweeps + batched reads", requests: total, discovery: discovery, minimumDiscovery: minimumDiscovery,
            minimumReads: minimumReads, lengths: lengths, refused: refused, statistics: await connection.statistics, link: link,
            elapsed: start.duration(to: simulation.clock.now))
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
    var streamThroughput: [StreamThroughput]
}

let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
if CommandLine.arguments.dropFirst().first == "--throughput" {
    print(String(decoding: try encoder.encode(try streamThroughput()), as: UTF8.self))
} else {
    let devices: [VirtualPeripheral] = [.heartRateStrap(), .actionCamera(), .fitnessBand()]
    var costs: [ProtocolCost] = []
    for device in devices {
        for mtu in [23, 247] {
            costs.append(try perServiceCost(of: device, maximumMTU: mtu))
            costs.append(try sweepAndBatchCost(of: device, maximumMTU: mtu))
        }
    }
    let report = Report(protocolCost: costs, fanIn: try fanIn(), streamThroughput: try streamThroughput())
    print(String(decoding: try encoder.encode(report), as: UTF8.self))
}
