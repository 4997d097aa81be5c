// Issue 28: a mebibyte through one simulated link, in virtual time, three ways — an L2CAP
// credit-based channel (central → peripheral), GATT notifications (peripheral → central) and
// GATT writes without response (central → peripheral) — on LE 1M and LE 2M with Data Length
// Extension. Only measured figures and the link's parameters are written here;
// scripts/bench_report.py works out the link model's ceilings, the fractions and the verdict.

import Harald
import HaraldATT
import HaraldSimulator

/// One transfer: what was carried, over which link, in how much virtual time.
struct StreamThroughput: Codable {
    /// "LE 1M" or "LE 2M".
    var phy: String
    var connectionIntervalMicroseconds: Int
    /// Packets each side may send per connection event after the model's clamp to the interval.
    var packetsPerEvent: Int
    var linkLayerPayload: Int
    /// "L2CAP channel", "GATT notifications" or "GATT writes without response".
    var transport: String
    /// "central → peripheral" or "peripheral → central".
    var direction: String
    /// Application bytes delivered (all of them, checked).
    var bytes: Int
    /// From the first byte handed to the sender until the receiver had the last (for the
    /// channel: until the sink's answer to "report", sent after the last SDU, arrived).
    var virtualNanoseconds: Int64
    /// Payload bytes one PDU carries at most: the channel's MPS, or ATT_MTU − 3 for GATT.
    var payloadPerPDU: Int
    /// The channel's SDU size (the sink's MTU); nil for GATT.
    var sduBytes: Int?
    /// L2CAP PDUs that carried the data: K-frames, or notifications / write commands.
    var pdus: Int
    /// Flow Control Credit Indications the sink sent during the transfer, counted on the link
    /// (see `channelTransfer`); nil for GATT, or when the count did not add up.
    var creditIndications: Int?
}

/// The two links of the benchmark: Data Length Extension (251-byte packets) on each PHY, at a
/// connection interval phones commonly grant (30 ms on LE 1M, 15 ms on LE 2M), with as many
/// packets per event as fit in the interval (the model clamps the 64 asked for: 12 on LE 1M, 10
/// on LE 2M).
let throughputLinks: [LinkParameters] = [
    LinkParameters(connectionInterval: .milliseconds(30), packetsPerEvent: 64, linkLayerPayload: 251, phy: .le1M, maximumATTMTU: 247),
    LinkParameters(connectionInterval: .milliseconds(15), packetsPerEvent: 64, linkLayerPayload: 251, phy: .le2M, maximumATTMTU: 247),
]

let throughputBytes = 1 << 20
private let bulkService = BluetoothUUID(0xFFF0)
private let bulkUUID = BluetoothUUID(0xFFF2)
private let bulk = Characteristic<[UInt8], WriteBothNotify>(bulkUUID, service: bulkService)
private let deviceAddress = BluetoothAddress("B0:00:00:00:00:28", kind: .random)!

private func nanoseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
}

private func row(
    _ link: LinkParameters, transport: String, direction: String, elapsed: Duration, payload: Int, sdu: Int? = nil, pdus: Int,
    credits: Int? = nil
) -> StreamThroughput {
    StreamThroughput(
        phy: link.phy == .le2M ? "LE 2M" : "LE 1M", connectionIntervalMicroseconds: Int(nanoseconds(link.connectionInterval) / 1000),
        packetsPerEvent: link.effectivePacketsPerEvent, linkLayerPayload: link.linkLayerPayload, transport: transport, direction: direction,
        bytes: throughputBytes, virtualNanoseconds: nanoseconds(elapsed), payloadPerPDU: payload, sduBytes: sdu, pdus: pdus,
        creditIndications: credits)
}

struct ThroughputFailure: Error, CustomStringConvertible {
    var description: String
}

/// A mebibyte written into a channel to a sink device, as `SimulatedChannelTests` does: SDUs of
/// the sink's MTU (4096) cut into K-frames of 247 bytes (one full packet each), 64 KiB of
/// receive room on the sink. The clock stops when the sink's answer to "report" arrives, and the
/// answer must account for every byte.
///
/// Credit indications are counted from the link's statistics: between the channel's opening and
/// the answer the sink sends nothing but credit indications (8-byte signaling PDUs) and the one
/// K-frame of its answer, so its PDU count less one is the indication count, and the byte count
/// must agree (8 per indication, 2 + the answer's length for the K-frame) or none is reported.
func channelTransfer(on link: LinkParameters) throws -> StreamThroughput {
    let options = L2CAPChannelOptions(mtu: 4096, mps: link.linkLayerPayload - 4, receiveBuffer: 64 * 1024)
    let simulation = Simulation()
    var sink = VirtualPeripheral(address: deviceAddress, advertisingData: .device(name: "Sink")) { _ in
        PeripheralBehaviour(definition: PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Sink"), services: []))
    }
    sink.channels = [VirtualChannelService(psm: 0x80, behaviour: .sink, options: options)]
    let device = sink
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try simulation.run(timeLimit: .seconds(3600)) {
        let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
        let channel = try await connection.openL2CAPChannel(psm: 0x80, options: options)
        let simulated = simulator.connection(to: deviceAddress)!
        let before = await simulated.statistics
        let start = simulation.clock.now
        try await channel.write([UInt8](repeating: 0x42, count: throughputBytes))
        let written = await simulated.statistics
        try await channel.send(Array("report".utf8))
        var replies = channel.incoming.makeAsyncIterator()
        let answer = try await replies.next() ?? []
        let elapsed = start.duration(to: simulation.clock.now)
        let after = await simulated.statistics
        let expected = "\(throughputBytes) \((throughputBytes + options.mtu - 1) / options.mtu)"
        guard String(decoding: answer, as: UTF8.self) == expected else {
            throw ThroughputFailure(description: "the sink answered \(String(decoding: answer, as: UTF8.self)), not \(expected)")
        }
        let sinkPDUs = after.pdusSent[.peripheral]! - before.pdusSent[.peripheral]!
        let sinkBytes = after.bytesSent[.peripheral]! - before.bytesSent[.peripheral]!
        let indications = sinkPDUs - 1
        let adds = sinkBytes == 8 * indications + 2 + answer.count
        await channel.close()
        return row(
            link, transport: "L2CAP channel", direction: "central → peripheral", elapsed: elapsed, payload: options.mps, sdu: options.mtu,
            pdus: written.pdusSent[.central]! - before.pdusSent[.central]!, credits: adds ? indications : nil)
    }
}

/// A device with one characteristic that takes writes without response and notifies.
private func bulkDevice() -> VirtualPeripheral {
    let service = ServiceDefinition(
        uuid: bulkService, characteristics: [CharacteristicDefinition(uuid: bulkUUID, properties: [.write, .writeWithoutResponse, .notify])])
    return VirtualPeripheral(address: deviceAddress, advertisingData: .device(name: "Bulk")) { _ in
        PeripheralBehaviour(definition: PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Bulk"), services: [service]))
    }
}

/// The mebibyte cut into values of `payload` bytes (the last one shorter).
private func chunks(_ payload: Int) -> [Int] {
    stride(from: 0, to: throughputBytes, by: payload).map { min(payload, throughputBytes - $0) }
}

/// A mebibyte notified by the device as fast as its link takes it, in values of ATT_MTU − 3
/// bytes, to a central subscribed through the public API; the clock stops when the subscriber's
/// loop has the last byte.
func notificationTransfer(on link: LinkParameters) throws -> StreamThroughput {
    let simulation = Simulation()
    let device = bulkDevice()
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try simulation.run(timeLimit: .seconds(3600)) {
        let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
        let payload = await connection.mtu() - 3
        let sizes = chunks(payload)
        let values = try await connection.subscribe(bulk, buffering: .oldest(sizes.count))
        let runtime = simulator.runtime(of: device.address)!
        let start = simulation.clock.now
        async let sent: Void = {
            for size in sizes { _ = await runtime.notify(bulkUUID, [UInt8](repeating: 0x42, count: size)) }
        }()
        var received = 0
        for try await value in values {
            received += value.count
            if received >= throughputBytes { break }
        }
        let elapsed = start.duration(to: simulation.clock.now)
        await sent
        guard received == throughputBytes else { throw ThroughputFailure(description: "\(received) bytes notified, not \(throughputBytes)") }
        return row(link, transport: "GATT notifications", direction: "peripheral → central", elapsed: elapsed, payload: payload, pdus: sizes.count)
    }
}

/// A mebibyte written without response through the public API in values of ATT_MTU − 3 bytes;
/// the clock stops when the device's GATT server has taken the last write (looked at every
/// 0.1 ms of virtual time).
func writeWithoutResponseTransfer(on link: LinkParameters) throws -> StreamThroughput {
    let simulation = Simulation()
    let device = bulkDevice()
    let simulator = try Simulator(clock: simulation.clock, devices: [device], link: link)
    let central = Central(backend: simulator.backend, clock: simulation.clock)
    return try simulation.run(timeLimit: .seconds(3600)) {
        let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
        let payload = await connection.mtu() - 3
        let sizes = chunks(payload)
        _ = try await connection.characteristic(bulkUUID, service: bulkService)
        let server = simulator.connection(to: device.address)!.server
        let already = await server.counters.pdusReceived[.writeCommand] ?? 0
        let start = simulation.clock.now
        for size in sizes {
            try await connection.writeWithoutResponse([UInt8](repeating: 0x42, count: size), to: bulk)
        }
        while (await server.counters.pdusReceived[.writeCommand] ?? 0) - already < sizes.count {
            try await simulation.clock.sleep(for: .microseconds(100))
        }
        return row(
            link, transport: "GATT writes without response", direction: "central → peripheral", elapsed: start.duration(to: simulation.clock.now),
            payload: payload, pdus: sizes.count)
    }
}

/// Every transfer on every link.
func streamThroughput() throws -> [StreamThroughput] {
    try throughputLinks.flatMap { link in
        [try channelTransfer(on: link), try notificationTransfer(on: link), try writeWithoutResponseTransfer(on: link)]
    }
}
