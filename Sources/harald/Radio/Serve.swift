import ArgumentParser
import Dispatch
import Foundation
import Harald
import HaraldCore
import HaraldGoProSimulation
import HaraldMiBandSimulation
import HaraldHCI
import HaraldHCIBackend
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSMP

/// `harald serve hrm`: be the device. Advertises over an HCI controller, serves the device's GATT
/// database to every central that connects, and prints one line per connection, subscription,
/// write and notification, until SIGINT or SIGTERM (then every central is disconnected and the
/// exit status is 0).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Be a device: advertise and serve its GATT database over an HCI controller.",
        discussion: """
            Devices: hrm (heart-rate monitor: Heart Rate 0x180D with a live measurement, Body Sensor \
            Location and the control point; Battery 0x180F; Device Information 0x180A); gopro (a \
            GoPro-like camera speaking the Open GoPro BLE protocol on service 0xFEA6: commands, \
            settings, queries, status pushes, multi-packet answers; its WiFi SSID needs an encrypted \
            link); miband (a Mi-Band-2-like band: the AES auth handshake with the default key, realtime \
            steps, battery, heart rate, activity fetch). Needs a radio: --transport tcp:HOST:PORT (Bumble's virtual controllers) or hci:N.
            """)

    enum Device: String, ExpressibleByArgument, CaseIterable {
        case hrm, gopro, miband
    }

    @Argument(help: "The device to be: hrm, gopro or miband.")
    var device: Device

    @Option(help: "tcp:HOST:PORT (H4 over TCP) or hci:N (Linux HCI user channel).")
    var transport: String

    @Option(help: "The name it advertises (default: Harald HRM, GoPro 0042, MI Band 2).")
    var name: String?

    @Option(help: "A static random address to advertise from, for good (turns privacy off; default: a resolvable private address).")
    var address: String?

    @Flag(
        inversion: .prefixedNo,
        help: ArgumentHelp(
            "Advertise from resolvable private addresses made with our IRK (kept in the bond file), a fresh one every "
                + "--address-interval seconds, so that only bonded centrals recognise the device. --no-privacy: the static "
                + "identity address instead."))
    var privacy = true

    @Option(help: "Seconds one private address lasts (default 900: the spec's 15 minutes, T_GAP(private_addr_int)).")
    var addressInterval: Double = 900

    @Option(help: "Milliseconds between heart-rate measurements.")
    var interval: Int = 1000

    @Option(help: "Stop after this many seconds (default: serve until SIGINT or SIGTERM).")
    var seconds: Double?

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    /// What every characteristic served asks of a central's link.
    enum SecurityChoice: String, ExpressibleByArgument, CaseIterable {
        case open, encrypted, authenticated
        case scOnly = "sc-only"

        /// The requirement every characteristic gets (16-octet keys for each encrypted level).
        var requirement: AttributeSecurity {
            switch self {
            case .open: .none
            case .encrypted: .encrypted
            case .authenticated: .authenticated
            case .scOnly: .authenticatedSecureConnections
            }
        }
    }

    @Option(
        help: ArgumentHelp(
            "What every characteristic needs for reads, writes and subscriptions: open, encrypted (any pairing), authenticated (passkey or numeric comparison) or sc-only (authenticated LE Secure Connections, Level 4). Keys must be 16 octets.",
            valueName: "LEVEL"))
    var security: SecurityChoice = .open

    @Flag(help: ArgumentHelp("Deprecated: the same as --security encrypted (it used to cover the serial number only).", visibility: .hidden))
    var encrypted = false

    @OptionGroup var bondFile: BondFileOptions

    @Option(help: "What the device can show and take when a central pairs with it (none: Just Works).")
    var io: IOChoice = .none

    @Option(
        help: ArgumentHelp(
            "The passkey the device types when the central displays one (--io keyboard-only). The device never shows it: "
                + "where it displays, it shows a fresh random passkey on every pairing (printed on stderr).",
            valueName: "N"),
        transform: PairingOptions.passkey(from:))
    var passkey: UInt32?

    @Option(
        help: ArgumentHelp(
            "Show this passkey (0…999999) instead of a fresh random one where the device displays. Warning: a passkey shown "
                + "twice is no secret: one sniffed LE Secure Connections pairing reveals it, and whoever knows it can pair.",
            valueName: "N"),
        transform: PairingOptions.fixedPasskey(from:))
    var fixedPasskey: UInt32?

    func validate() throws {
        let choice = try TransportChoice(parsing: transport)
        if choice == .simulator { throw ValidationError("serve needs a radio: --transport tcp:HOST:PORT or hci:N") }
        if let address {
            guard let parsed = BluetoothAddress(address, kind: .random), parsed.isStaticRandom else {
                throw ValidationError("'\(address)' is not a static random address (its two top bits are 11, e.g. C0:00:00:00:00:01)")
            }
        }
        guard (10...60_000).contains(interval) else { throw ValidationError("--interval must lie within 10…60000 ms") }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
        guard addressInterval >= 1, addressInterval <= 24 * 3600 else { throw ValidationError("--address-interval must lie within 1…86400 seconds") }
        if encrypted, security != .open, security != .encrypted {
            throw ValidationError("--encrypted (deprecated) is --security encrypted; give only --security \(security.rawValue)")
        }
    }

    /// The requirement asked for, with the deprecated flag's.
    var requirement: AttributeSecurity { encrypted && security == .open ? .encrypted : security.requirement }

    func run() async throws {
        PairingOptions.warnIfFixed(fixedPasskey)
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = address.flatMap { BluetoothAddress($0, kind: .random) }
        let json = self.json
        let interval = self.interval
        let name: String
        let definition: PeripheralDefinition
        let behaviour: @Sendable (ServedPeripheral) async -> Void
        switch device {
        case .hrm:
            name = self.name ?? "Harald HRM"
            let monitor: HeartRateMonitorDevice
            do { monitor = try HeartRateMonitorDevice(name: name) } catch { Output.fail("the device definition: \(error)", status: 70) }
            definition = monitor.definition.requiring(requirement)
            behaviour = { served in
                await monitor.run(served, every: .milliseconds(interval)) { measurement, sent in
                    guard sent > 0 else { return }
                    Self.report(
                        [
                            "event": .string("notified"), "characteristic": .string("2A37"), "heartRate": .int(Int(measurement.heartRate)),
                            "centrals": .int(sent),
                        ],
                        text: "notified Heart Rate Measurement \(measurement.heartRate) bpm to \(sent) central(s)", json: json)
                }
            }
        case .gopro:
            name = self.name ?? "GoPro 0042"
            let camera = ActionCameraDevice(name: name, bootTime: .zero)
            definition = camera.definition.requiring(requirement)
            behaviour = { served in await camera.run(served) }
        case .miband:
            name = self.name ?? "MI Band 2"
            let band = FitnessBandDevice(name: name)
            definition = band.definition.requiring(requirement)
            behaviour = { served in await band.run(served) }
        }
        if encrypted { Self.warn("--encrypted is deprecated and now stands for --security encrypted: every characteristic needs an encrypted link") }
        if requirement.level >= .authenticated, io == .none {
            Self.warn("--security \(security.rawValue) with --io none: Just Works pairing cannot authenticate, so centrals will be refused")
        }
        // The device answers pairing as a device does: Security Manager as responder, bonds kept in
        // the bond file, the IO capability and passkey given.
        let bonds = FileBondStore(fileURL: try bondFile.fileURL()) { key, address in key.resolves(address) }
        var authReq: AuthReq = [.bonding, .secureConnections]
        if io != .none { authReq.insert(.mitm) }
        let security = SecurityConfiguration(
            bonds: bonds, pairing: PairingConfiguration(ioCapability: io.capability, authReq: authReq),
            agent: CommandLinePairingAgent(passkey: passkey, fixedDisplayPasskey: fixedPasskey, interactive: false))
        let served: ServedPeripheral
        do {
            served = try await ServedPeripheral.start(
                definition,
                on: HCIPeripheralBackend(
                    transport: transport, configuration: configuration, security: security, privateAddress: privacy && address == nil,
                    privateAddressInterval: .milliseconds(Int64(addressInterval * 1000))))
        } catch {
            Output.fail("cannot serve on \(transport): \(error)", status: 69)
        }
        let isPrivate = privacy && address == nil
        report(
            ["event": .string("advertising"), "name": .string(name), "privateAddress": .bool(isPrivate)],
            text: "advertising as \"\(name)\" on \(transport)"
                + (isPrivate ? " from a resolvable private address (a new one every \(Int(addressInterval)) s)" : ""))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in served.events() { Self.report(event, json: json) }
            }
            group.addTask { await behaviour(served) }
            group.addTask { await Self.waitForStop(seconds: seconds) }
            _ = await group.next()  // a stop signal or the time limit; the others run forever
            group.cancelAll()
            await served.stop()
        }
        report(["event": .string("stopped")], text: "stopped")
    }

    private func report(_ fields: [String: JSONValue], text: String) { Self.report(fields, text: text, json: json) }

    /// Prints `warning: <message>` on stderr.
    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data(("warning: " + message + "\n").utf8))
    }

    private static func report(_ fields: [String: JSONValue], text: String, json: Bool) {
        json ? Output.json(.object(fields)) : Output.line(text)
    }

    private static func report(_ event: PeripheralEvent, json: Bool) {
        let fields: [String: JSONValue] =
            switch event {
            case let .connected(central): ["event": .string("connected"), "central": .string(central.rawValue)]
            case let .disconnected(central): ["event": .string("disconnected"), "central": .string(central.rawValue)]
            case let .subscriptionChanged(central, uuid, on):
                ["event": .string(on ? "subscribed" : "unsubscribed"), "central": .string(central.rawValue), "characteristic": .string(uuid.description)]
            case let .wrote(central, uuid): ["event": .string("wrote"), "central": .string(central.rawValue), "characteristic": .string(uuid.description)]
            case let .read(central, uuid): ["event": .string("read"), "central": .string(central.rawValue), "characteristic": .string(uuid.description)]
            case let .secured(central, level): ["event": .string("secured"), "central": .string(central.rawValue), "level": .string(level.description)]
            case let .paired(central, bonded): ["event": .string("paired"), "central": .string(central.rawValue), "bonded": .bool(bonded)]
            case let .pairingFailed(central, reason): ["event": .string("pairing-failed"), "central": .string(central.rawValue), "reason": .string(reason)]
            }
        report(fields, text: event.description, json: json)
    }

    /// Returns on SIGINT or SIGTERM, or after `seconds`.
    static func waitForStop(seconds: Double?) async {
        let (stops, stop) = AsyncStream.makeStream(of: Void.self)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.yield() }
            source.resume()
            sources.append(source)
        }
        if let seconds {
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                stop.yield()
            }
        }
        for await _ in stops { break }
        for source in sources { source.cancel() }
    }
}
