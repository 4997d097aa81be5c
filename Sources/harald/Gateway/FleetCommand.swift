import ArgumentParser
import Foundation
import HaraldCore
import HaraldFleet
import HaraldGateway
import HaraldMQTT

/// `harald fleet --broker URL`: many gateways as one, through the broker.
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Arbitrate between gateways: one view per device (owning gateway, smoothed RSSI per gateway, present or away).",
        discussion: """
            Reads every gateway's device reports (home/+/BTtoMQTT/+) and availability (home/+/LWT), \
            in Theengs Gateway's layout, and publishes home/ID/AABBCCDDEEFF per present device \
            (retained; an away device gets a live present:false, then its retained view is cleared), \
            home/ID/gateways and home/ID/LWT. A device's owner changes only when another gateway's \
            smoothed RSSI is more than --switch-threshold dB stronger (plus --deadband for a gateway \
            that lost it), when its owner stops hearing it, or when its owner goes offline. The \
            defaults are Home Assistant's habluetooth constants. Prints one line per change (arrived, \
            owner, away, gateway online/offline); runs until SIGINT or SIGTERM (exit 0), then \
            publishes offline and disconnects.
            """)

    @OptionGroup var broker: BrokerOptions

    @Option(help: ArgumentHelp("The fleet's name: its topics home/ID/… and its MQTT client identifier.", valueName: "ID"))
    var id: String = "fleet"

    @Option(help: ArgumentHelp("The first level of every topic.", valueName: "PREFIX"))
    var base: String = "home"

    @Option(
        name: .customLong("switch-threshold"),
        help: ArgumentHelp("dB by which a gateway's smoothed RSSI must exceed the owner's (strictly) to take a device.", valueName: "DB"))
    var switchThreshold: Double = 16

    @Option(help: ArgumentHelp("dB more a gateway that lost a device must add to the threshold to win it back.", valueName: "DB"))
    var deadband: Double = 6

    @Option(help: ArgumentHelp("Weight of a new reading in the smoothed RSSI (0 < W ≤ 1; 1: no smoothing).", valueName: "W"))
    var smoothing: Double = 0.3

    @Option(help: ArgumentHelp("Seconds a device whose advertising interval is known may go unheard before it is away.", valueName: "SECONDS"))
    var stale: Double = 195

    @Option(
        name: .customLong("stale-unknown"),
        help: ArgumentHelp(
            "Seconds a device whose advertising interval is not known (every device reported by today's gateways) may go unheard before it is away.",
            valueName: "SECONDS"))
    var staleUnknown: Double = 900

    @Option(name: .customLong("max-devices"), help: ArgumentHelp("Devices tracked at once; past it the longest unheard goes away.", valueName: "N"))
    var maximumDevices: Int = 10_000

    @Option(name: .customLong("max-gateways"), help: ArgumentHelp("Gateways known at once; messages from more are skipped.", valueName: "N"))
    var maximumGateways: Int = 1_024

    @Option(
        name: .customLong("rssi-interval"),
        help: ArgumentHelp("Least seconds between two publications of a device's view for a change of RSSI alone.", valueName: "SECONDS"))
    var rssiInterval: Double = 10

    @Flag(help: "Print each change as a JSON line.")
    var json = false

    func validate() throws {
        guard !id.isEmpty, !id.contains(where: { "/+#".contains($0) }) else { throw ValidationError("--id must be a topic level: no '/', '+' or '#'") }
        guard !base.isEmpty, !base.contains(where: { "/+#".contains($0) }) else { throw ValidationError("--base must be a topic level: no '/', '+' or '#'") }
        guard switchThreshold.isFinite, switchThreshold >= 0 else { throw ValidationError("--switch-threshold must be 0 dB or more") }
        guard deadband.isFinite, deadband >= 0 else { throw ValidationError("--deadband must be 0 dB or more") }
        guard smoothing > 0, smoothing <= 1 else { throw ValidationError("--smoothing must lie within 0 < W ≤ 1") }
        for (name, seconds) in [("--stale", stale), ("--stale-unknown", staleUnknown), ("--rssi-interval", rssiInterval)] {
            guard seconds.isFinite, seconds > 0, seconds <= 86_400 * 365 else { throw ValidationError("\(name) must be more than 0 seconds (at most a year)") }
        }
        guard maximumDevices >= 1 else { throw ValidationError("--max-devices must be 1 or more") }
        guard maximumGateways >= 1 else { throw ValidationError("--max-gateways must be 1 or more") }
    }

    /// The arbitration rules the options give.
    var policy: FleetPolicy {
        FleetPolicy(
            switchThreshold: switchThreshold, reclaimDeadband: deadband, smoothingFactor: smoothing, staleTime: .milliseconds(Int64(stale * 1000)),
            unknownIntervalStaleTime: .milliseconds(Int64(staleUnknown * 1000)), maximumDevices: maximumDevices)
    }

    func run() async throws {
        StandardOutput.ignoreBrokenPipes()
        let fleet = FleetView(
            broker: try broker.configuration(clientIdentifier: id), policy: policy,
            publishing: FleetPublishingPolicy(rssiUpdateInterval: .milliseconds(Int64(rssiInterval * 1000)), maximumGateways: maximumGateways),
            topics: FleetTopics(name: id, base: base))
        let json = json
        let endpoint = broker.endpoint
        let printer = Task { for await event in fleet.events { Self.print(event, json: json) } }
        let announcer = Task {
            try await fleet.client.waitUntilConnected()
            note("connected; reading \(base)/+/BTtoMQTT/+ and \(base)/+/LWT")
        }
        note("connecting to \(endpoint) as \(id)")
        let running = Task { try await fleet.run() }
        let outcome = await withTaskGroup(of: Result<Void, any Error>?.self) { group in
            group.addTask {
                await Serve.waitForStop(seconds: nil); return nil
            }
            group.addTask { await running.result }
            let first = await group.next() ?? nil
            running.cancel()
            group.cancelAll()
            return first
        }
        announcer.cancel()
        let result = await running.result
        await printer.value
        if case .failure(let error) = outcome ?? result {
            Output.fail("fleet on \(endpoint): \(error)", status: Self.status(of: error))
        }
        let statistics = await fleet.statistics
        note(
            "stopped: \(statistics.messages) messages read (\(statistics.malformed) malformed, \(statistics.reportsWithoutRSSI) without RSSI), \(statistics.published) published"
        )
    }

    private static func status(of error: any Error) -> Int32 {
        switch error as? MQTTClientError {
        case .connectionRefused?, .tls?: ExitStatus.unavailable
        default: ExitStatus.failure
        }
    }

    private static func print(_ event: FleetEvent, json: Bool) {
        let text: String
        var fields: [String: String]
        switch event {
        case let .arrived(address, owner):
            text = "arrived \(address) owner \(owner)"
            fields = ["event": "arrived", "device": address.string, "address_type": address.kind.description, "owner": owner]
        case let .ownerChanged(address, from, to):
            text = "owner \(address) \(from) -> \(to)"
            fields = ["event": "owner", "device": address.string, "address_type": address.kind.description, "from": from, "to": to]
        case let .away(address):
            text = "away \(address)"
            fields = ["event": "away", "device": address.string, "address_type": address.kind.description]
        case let .gatewayOnline(gateway):
            text = "gateway \(gateway) online"
            fields = ["event": "gateway", "gateway": gateway, "state": "online"]
        case let .gatewayOffline(gateway):
            text = "gateway \(gateway) offline"
            fields = ["event": "gateway", "gateway": gateway, "state": "offline"]
        }
        json ? Output.json(.object(fields.mapValues { .string($0) })) : Output.line(text)
    }
}
