import ArgumentParser
import Foundation
import Harald
import HaraldAdvertisements
import HaraldCore
import HaraldGateway
import HaraldMQTT
import HaraldProfiles

/// `harald gateway --broker mqtt://HOST:PORT --id NAME`: scan without end and publish decoded BLE
/// to MQTT in Theengs Gateway's layout, with Home Assistant discovery.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Scan without end and publish every device's decoded advertisements to an MQTT broker.",
        discussion: """
            Each device's report (id, name, RSSI, TX power, manufacturer and every decoded value, \
            with units) goes to home/NAME/BTtoMQTT/<address without colons> when it changes, at most \
            once per --min-interval, and again every --refresh while the device is heard. \
            home/NAME/LWT is a retained online, and offline when the gateway stops or dies (its last \
            will). Home Assistant discovery configs (retained) make every value an entity. Decoded: \
            BTHome v2 (--bthome-key for encrypted sensors), SIG service data, iBeacon, Eddystone, \
            company names. --poll reads a characteristic on a schedule (connect, read, disconnect). With --bonds, bonded devices' private addresses are resolved to their \
            identities (HCI transports). Runs until SIGINT or SIGTERM (exit 0). \
            --transport sim listens, in real time, to virtual BTHome sensors and the demo's devices.
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var broker: BrokerOptions

    @Option(help: "The gateway's name: its topics' second level and its MQTT client id.")
    var id: String = "harald"

    @Option(help: "The first level of the gateway's topics.")
    var base: String = "home"

    @Option(help: "Home Assistant's discovery prefix.")
    var discoveryPrefix: String = "homeassistant"

    @Flag(help: "Publish no Home Assistant discovery configs.")
    var noDiscovery = false

    @Option(help: "Seconds: the least time between two reports of one device.")
    var minInterval: Double = 1

    @Option(help: "Seconds: report a device still heard again after this long, changed or not.")
    var refresh: Double = 30

    @Option(help: "dB: an RSSI change this large is a change worth reporting.")
    var rssiChange: Int = 5

    @Option(help: "Seconds: forget a device not heard for this long (Home Assistant's expire_after).")
    var stale: Double = 195

    @Option(help: "The most devices remembered at once.")
    var maxDevices: Int = 4_096

    @Option(
        help: ArgumentHelp(
            "A BTHome sensor's bind key: ADDRESS=32 hex digits (repeat for several sensors).", valueName: "ADDRESS=KEY"))
    var bthomeKey: [String] = []

    @Option(
        help: ArgumentHelp(
            "Read a characteristic on a schedule: ADDRESS:UUID:SECONDS (repeat for several); the decoded value joins the device's report.",
            valueName: "ADDRESS:UUID:SECONDS"))
    var poll: [String] = []

    @Option(help: "Seconds to run, then stop as on SIGINT (default: until a signal).")
    var duration: Double?

    @Option(help: "dB: with --transport sim, hear the virtual devices this much weaker (a gateway further away).")
    var simAttenuation: Int = 0

    @Option(help: "With --transport sim, this many more virtual BTHome thermometers advertising once a second (a load).")
    var simDevices: Int = 0

    func validate() throws {
        guard (0...100_000).contains(simDevices) else { throw ValidationError("--sim-devices must be 0…100000") }
        guard !id.isEmpty, !id.contains(where: { "/+#".contains($0) }) else {
            throw ValidationError("--id '\(id)' must be non-empty and contain no '/', '+' or '#'")
        }
        guard !base.isEmpty, !base.contains(where: { "+#".contains($0) }) else { throw ValidationError("--base must be a topic level") }
        for (name, value) in [("--min-interval", minInterval), ("--refresh", refresh), ("--stale", stale)] {
            guard value.isFinite, value > 0, value <= 86_400 else { throw ValidationError("\(name) must be more than 0 and at most 86400 seconds") }
        }
        guard rssiChange >= 0, rssiChange <= 100 else { throw ValidationError("--rssi-change must be 0…100 dB") }
        guard maxDevices > 0, maxDevices <= 1_000_000 else { throw ValidationError("--max-devices must be 1…1000000") }
        if let duration { guard duration.isFinite, duration > 0 else { throw ValidationError("--duration must be more than 0 seconds") } }
        _ = try decoders()
        _ = try polls()
    }

    /// The polls of `--poll`.
    func polls() throws -> [GatewayPoll] {
        try poll.map { text in
            guard let poll = GatewayPoll(text) else {
                throw ValidationError("--poll '\(text)' is not ADDRESS:UUID:SECONDS (e.g. C0:00:00:00:00:01:2A19:60; at least 1 second)")
            }
            return poll
        }
    }

    /// The standard decoders with the bind keys of `--bthome-key`.
    func decoders() throws -> AdvertisementDecoderRegistry {
        var decoders = AdvertisementDecoderRegistry.standard
        for entry in bthomeKey {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let address = BluetoothAddress(String(parts[0])) else {
                throw ValidationError("--bthome-key '\(entry)' is not ADDRESS=KEY")
            }
            let hex = parts[1].filter { !$0.isWhitespace }
            guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else {
                throw ValidationError("--bthome-key for \(address.string): the key must be 32 hex digits (16 octets)")
            }
            let key = stride(from: 0, to: 32, by: 2).map { offset -> UInt8 in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!  // two hex digits, checked above
            }
            decoders.setBTHomeBindKey(key, for: address)
        }
        return decoders
    }

    var policy: GatewayPolicy {
        GatewayPolicy(
            minimumInterval: .milliseconds(Int(minInterval * 1000)), refreshInterval: .milliseconds(Int(refresh * 1000)),
            rssiChange: rssiChange, staleTime: .milliseconds(Int(stale * 1000)), maximumDevices: maxDevices,
            homeAssistantDiscovery: !noDiscovery)
    }

    func run() async throws {
        RadioSession.bootstrapLogging(level: radio.effectiveLogLevel)
        let topics = GatewayTopics(gateway: id, base: base, discoveryPrefix: discoveryPrefix)
        let configuration = try broker.configuration(clientIdentifier: id)
        let decoders = try decoders()
        let policy = policy
        let polls = try polls()
        let duration = duration
        let body: @Sendable (Central) async throws -> Void = { central in
            let gateway = Gateway(
                central: central, broker: configuration, topics: topics, policy: policy, decoders: decoders, polls: polls,
                characteristics: .harald)
            try await Self.serve(gateway, broker: configuration, duration: duration)
        }
        if case .simulator = try radio.transportChoice() {
            let room = try GatewaySensors(attenuation: simAttenuation, crowd: simDevices)
            defer { room.stop() }
            do {
                try await body(Central(backend: room.simulator.backend, clock: room.clock))
            } catch {
                Output.fail(RadioSession.message(for: error), status: ExitStatus.of(error))
            }
        } else {
            try await RadioSession.run(radio, body)
        }
    }

    /// Runs `gateway` until a signal or `duration`, printing a summary on stderr at the end.
    static func serve(_ gateway: Gateway, broker: MQTTClient.Configuration, duration: Double?) async throws {
        let run = Task { try await gateway.run() }
        let stopped = Task {
            await Serve.waitForStop(seconds: duration)
            run.cancel()
        }
        let outcome = await run.result
        stopped.cancel()
        let statistics = await gateway.currentStatistics
        note(
            "gateway \(gateway.topics.gateway): \(statistics.advertisements) advertisements, \(statistics.reports) reports, "
                + "\(statistics.discoveryConfigs) discovery configs, \(statistics.devices) devices, \(statistics.refused) refused")
        switch outcome {
        case .success: return
        case let .failure(error as MQTTClientError):
            Output.fail("broker \(broker.host):\(broker.port): \(error)", status: ExitStatus.unavailable)
        case let .failure(error): throw error
        }
    }
}
