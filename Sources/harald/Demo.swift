import ArgumentParser
import Foundation
import Harald
import HaraldSimulator

/// `harald demo`: the public API against the built-in virtual devices, in virtual time.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run Harald against virtual devices in a deterministic simulation and show what happened.")

    @Option(help: "Heart-rate measurements to print.")
    var measurements = 5

    func run() throws {
        RadioSession.bootstrapLogging(verbose: false)
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
            throw ValidationError("the simulation needs task executors (macOS 15 or later)")
        }
        let simulation = Simulation()
        let clock = simulation.clock
        let strap = VirtualPeripheral.heartRateStrap()
        let camera = VirtualPeripheral.actionCamera()
        let band = VirtualPeripheral.fitnessBand()
        let world = try Simulator(clock: clock, devices: [strap, camera, band])
        let count = measurements
        try simulation.run(timeLimit: .seconds(3600)) {
            let say = DemoPrinter(clock: clock)
            let central = Central(backend: world.backend, clock: clock)
            try await Self.scan(central, say)
            try await Self.strap(central, world, strap, measurements: count, say)
            try await Self.camera(central, world, camera, say)
            try await Self.band(central, world, band, say)
            say("done")
        }
    }

    private static func scan(_ central: Central, _ say: DemoPrinter) async throws {
        say("scanning for 1 s")
        let scan = central.scan()
        let clock = central.clock
        let seen: [Advertisement] = try await withThrowingTaskGroup(of: [Advertisement].self) { group in
            group.addTask {
                var found: [Advertisement] = []
                for try await advertisement in scan { found.append(advertisement) }
                return found
            }
            group.addTask {
                try await clock.sleep(for: .seconds(1))
                return []
            }
            // When the second passes the scan is cancelled and returns what it collected.
            var all: [Advertisement] = []
            if let first = try await group.next() { all += first }
            group.cancelAll()
            while let rest = try await group.next() { all += rest }
            return all
        }
        for advertisement in seen {
            let services = advertisement.serviceUUIDs.map(\.description).joined(separator: ", ")
            say("  found \(advertisement.localName ?? "?") at \(advertisement.peripheral), \(advertisement.rssi) dBm, services [\(services)]")
        }
    }

    private static func strap(_ central: Central, _ world: Simulator, _ strap: VirtualPeripheral, measurements: Int, _ say: DemoPrinter) async throws {
        say("connecting to \(strap.name ?? "the strap")")
        let connection = try await central.connect(to: strap.identifier, services: [.heartRate, .battery, .deviceInformation], timeout: .seconds(5))
        say("  connected, ATT_MTU \(await connection.mtu())")
        say("  battery \(try await connection.read(.batteryLevel).percent) %")
        say("  manufacturer \"\(try await connection.read(.manufacturerName).text)\", model \"\(try await connection.read(.modelNumber).text)\", firmware \"\(try await connection.read(.firmwareRevision).text)\"")
        say("  sensor location \(try await connection.read(.bodySensorLocation))")
        let values = try await connection.subscribe(.heartRateMeasurement)
        var received = 0
        for try await measurement in values {
            let rr = measurement.rrIntervals.map { "\(Int((Double($0) * 1000 / 1024).rounded())) ms" }.joined(separator: ", ")
            say("  heart rate \(measurement.heartRate) bpm, energy \(measurement.energyExpended.map { "\($0) kJ" } ?? "-"), RR [\(rr)]")
            received += 1
            if received == measurements { break }
        }
        try await connection.unsubscribe(values)
        try await connection.write(.resetEnergyExpended, to: .heartRateControlPoint)
        say("  wrote control point: reset energy expended")
        do {
            try await connection.write(.reserved(0x7F), to: .heartRateControlPoint)
        } catch {
            say("  wrote control point 0x7F: \(error)")
        }
        if let simulated = world.connection(to: strap.address) {
            simulated.injectOnNext(.readRequest, .neverAnswer)
            say("  injected fault: the strap will not answer the next read")
        }
        do {
            _ = try await connection.read(.batteryLevel, timeout: .seconds(2))
        } catch {
            say("  read battery: \(error)")
        }
        say("  link closed: \(await connection.disconnected())")
        if let simulated = world.connection(to: strap.address) {
            await Self.report(simulated, say)
        }
    }

    private static func camera(_ central: Central, _ world: Simulator, _ camera: VirtualPeripheral, _ say: DemoPrinter) async throws {
        say("connecting to \(camera.name ?? "the camera")")
        let connection = try await central.connect(to: camera.identifier, timeout: .seconds(5))
        let command = Characteristic<[UInt8], Harald.Write>(VirtualPeripheral.OpenGoPro.command, service: VirtualPeripheral.OpenGoPro.service)
        let response = Characteristic<[UInt8], Notify>(VirtualPeripheral.OpenGoPro.commandResponse, service: VirtualPeripheral.OpenGoPro.service)
        // Get Hardware Info: a multi-packet answer, reassembled from its Open GoPro headers.
        let packets = try await connection.subscribe(response, buffering: .oldest(64))
        try await connection.write([0x01, 0x3C], to: command)
        var message: [UInt8] = []
        var remaining = 0
        for try await packet in packets {
            guard let header = packet.first else { continue }
            if header & 0x80 != 0 {
                message += packet.dropFirst()
            } else if header & 0x60 == 0x20, packet.count >= 2 {
                remaining = Int(header & 0x1F) << 8 | Int(packet[1])
                message = Array(packet.dropFirst(2))
            } else {
                remaining = Int(header & 0x1F)
                message = Array(packet.dropFirst())
            }
            say("  packet \(packet.hexString)")
            if message.count >= remaining { break }
        }
        try await connection.unsubscribe(packets)
        let fields = Self.lengthPrefixedStrings(Array(message.dropFirst(7)))
        say("  hardware info: status \(message.count > 1 ? message[1] : 0xFF), model \"\(fields.first ?? "?")\", firmware \"\(fields.count > 1 ? fields[1] : "?")\"")
        let shutter = try await connection.request(write: [0x03, 0x01, 0x01, 0x01], to: command, response: response)
        say("  shutter on → \(shutter.hexString) (\(shutter.count == 3 && shutter[2] == 0 ? "success" : "error"))")
        // The WiFi SSID needs a paired link: the first read is refused and starts pairing.
        let ssid = Characteristic<[UInt8], Harald.Read>(VirtualPeripheral.OpenGoPro.wifiSSID, service: VirtualPeripheral.OpenGoPro.wifiService)
        do { _ = try await connection.read(ssid) } catch { say("  read WiFi SSID: \(error); pairing starts") }
        try await central.clock.sleep(for: .seconds(1))
        say("  read WiFi SSID after pairing: \"\(String(decoding: try await connection.read(ssid), as: UTF8.self))\"")
        await connection.disconnect()
        if let simulated = world.connection(to: camera.address) { await Self.report(simulated, say) }
    }

    private static func band(_ central: Central, _ world: Simulator, _ band: VirtualPeripheral, _ say: DemoPrinter) async throws {
        say("connecting to \(band.name ?? "the band")")
        let connection = try await central.connect(to: band.identifier, timeout: .seconds(5))
        let auth = VirtualPeripheral.MiBand.auth
        let replies = try await connection.subscribe(auth, buffering: .oldest(8))
        var iterator = replies.makeAsyncIterator()
        try await connection.write([0x02, 0x08], to: auth)
        guard let challenge = try await iterator.next(), challenge.count == 19 else { throw ValidationError("no challenge") }
        say("  auth: challenge \(Array(challenge.dropFirst(3)).hexString)")
        let answer = AES128(key: VirtualPeripheral.MiBand.defaultKey).encrypt(block: Array(challenge.dropFirst(3)))
        try await connection.write([0x03, 0x08] + answer, to: auth)
        let verdict = try await iterator.next() ?? []
        say("  auth: answer \(answer.hexString) → \(verdict.hexString) (\(verdict == [0x10, 0x03, 0x01] ? "authenticated" : "refused"))")
        try await connection.unsubscribe(replies)
        let steps = try await connection.read(VirtualPeripheral.MiBand.realtimeSteps)
        say("  steps \(steps.steps), \(steps.meters) m, \(steps.calories) kcal")
        let battery = try await connection.read(VirtualPeripheral.MiBand.batteryInfo)
        say("  battery \(battery.count > 1 ? battery[1] : 0) %\(battery.count > 2 && battery[2] == 1 ? ", charging" : "")")
        await connection.disconnect()
        if let simulated = world.connection(to: band.address) { await Self.report(simulated, say) }
    }

    private static func report(_ connection: SimulatedConnection, _ say: DemoPrinter) async {
        let stats = await connection.statistics
        let counters = await connection.clientCounters
        say("  cost: \(counters.totalRoundTrips) round trips, \(stats.pdusSent[.central] ?? 0)/\(stats.pdusSent[.peripheral] ?? 0) PDUs sent central/peripheral, \(stats.eventsWithData) connection events with data, \(stats.airTime) air time")
    }

    private static func lengthPrefixedStrings(_ bytes: [UInt8]) -> [String] {
        var strings: [String] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            guard index + 1 + length <= bytes.count else { break }
            strings.append(String(decoding: bytes[(index + 1)..<(index + 1 + length)], as: UTF8.self))
            index += 1 + length
            // Skip the 4-byte fields between strings (board type, …) when they are not text.
            if index < bytes.count, bytes[index] == 4, index + 5 <= bytes.count, bytes[(index + 1)..<(index + 5)].allSatisfy({ $0 < 0x20 }) {
                index += 5
            }
        }
        return strings
    }
}

/// Prints lines prefixed with the virtual time.
struct DemoPrinter: Sendable {
    let clock: VirtualClock

    func callAsFunction(_ line: String) {
        let elapsed = clock.now.sinceStart
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        print(String(format: "[t+%6lld.%03lld s] ", milliseconds / 1000, milliseconds % 1000) + line)
    }
}
