import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldProfiles
import HaraldTerminal

/// `harald l2cap bench`: throughput of a transfer over a channel, in the protocol of Bumble's
/// `bench` app (so either end may be Bumble's).
struct L2CAPBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the throughput of a transfer over a channel (Bumble bench's L2CAP protocol).",
        discussion: """
            As a central (ADDRESS given): opens the PSM and sends (--direction send) to a peer that \
            sinks, e.g. `bumble-bench --mode l2cap-server --scenario receive peripheral …`, or \
            receives (--direction receive) from one that sends (--scenario send). With --listen: \
            advertises and serves the PSM, and runs the same against the first central's channel \
            (`bumble-bench --mode l2cap-client … central …`). --direction both sends and receives at \
            once: against a peer that does both (another `harald l2cap bench`). The sender's time runs \
            from its reset packet to the receiver's acknowledgement of the last packet; the receiver's \
            from the reset to the last packet. Prints one line per direction (JSON with --json: \
            direction, bytes, seconds, kbps); a progress bar while sending, on a terminal only.
            """)

    enum Direction: String, ExpressibleByArgument, CaseIterable {
        case send, receive, both

        var sends: Bool { self != .receive }
        var receives: Bool { self != .send }
    }

    @OptionGroup var radio: RadioOptions

    @Argument(help: "The device's address as `scan` prints it (omit with --listen).")
    var address: String?

    @Option(help: "public or random; when omitted, the address type is learnt by scanning.")
    var addressType: String?

    @OptionGroup var channel: ChannelOptions

    @Option(help: ArgumentHelp("Bytes to send, rounded up to whole packets (default 1 MiB).", valueName: "N"))
    var bytes: Int = 1 << 20

    @Option(help: ArgumentHelp("Bytes per packet on the stream, its 2-byte length included (12–65537), as Bumble's --packet-size.", valueName: "N"))
    var packetSize: Int = 1024

    @Option(help: "send, receive or both.")
    var direction: Direction = .send

    @Option(help: ArgumentHelp("Seconds the whole run may take (connecting, or waiting for a central, included).", valueName: "SECONDS"))
    var timeout: Double = 120

    @Flag(help: "Be the peripheral: advertise, serve --psm and bench the first central's channel.")
    var listen = false

    @OptionGroup var peripheral: ChannelPeripheralOptions

    func validate() throws {
        if listen {
            if address != nil { throw ValidationError("--listen takes no ADDRESS: centrals come to it") }
            if try radio.transportChoice() == .simulator { throw ValidationError("--listen needs a radio: --transport tcp:HOST:PORT or hci:N") }
        } else {
            guard let address else { throw ValidationError("give the device's ADDRESS, or --listen") }
            _ = try AddressArgument(address, addressType: addressType)
        }
        guard ThroughputBenchPlan(totalBytes: bytes, packetSize: packetSize) != nil else {
            throw ValidationError("--bytes must be positive and --packet-size within 12…65537")
        }
        guard timeout > 0, timeout <= 86400 else { throw ValidationError("--timeout must lie within 0…86400 seconds") }
    }

    func run() async throws {
        let plan = ThroughputBenchPlan(totalBytes: bytes, packetSize: packetSize)!
        let bench = ChannelBench(
            direction: direction, plan: plan, timeout: .milliseconds(Int64(timeout * 1000)),
            progress: ProgressDisplay("sending", enabled: Terminal.stdoutIsTerminal && Terminal.stderrIsTerminal))
        let json = radio.json
        if listen {
            try await runListening(bench, json: json)
            return
        }
        let target = try AddressArgument(address ?? "", addressType: addressType)
        let (psm, options, timeout) = (channel.psm, channel.channelOptions, bench.timeout)
        try await RadioSession.run(radio) { central in
            let results = try await Deadline.within(timeout, "the bench") {
                try await central.waitUntilPoweredOn(timeout: .seconds(5))
                let peripheral = try await target.resolve(on: central, timeout: timeout)
                let connection = try await central.connect(to: peripheral, timeout: timeout)
                let channel = try await connection.openL2CAPChannel(psm: psm, options: options)
                return try await bench.run(on: channel)
            }
            Self.print(results, json: json)
        }
    }

    private func runListening(_ bench: ChannelBench, json: Bool) async throws {
        let served = try await peripheral.start(on: radio.transport, bondFile: radio.bondFile, io: radio.io)
        let options = channel.channelOptions
        do {
            let server = try await served.serveL2CAPChannels(psm: channel.psm, security: peripheral.security.level, options: options)
            note("listening on \(server.psm) as \"\(peripheral.name)\" on \(radio.transport)")
            let results = try await Deadline.within(bench.timeout, "the bench") {
                for await channel in server.channels { return try await bench.run(on: channel) }
                throw BluetoothError.cancelled
            }
            // Bumble's bench central lingers a second, then disconnects itself (and fails when the
            // link is already gone): give it a few seconds to.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in served.events() {
                        if case .disconnected = event { return }
                    }
                }
                group.addTask { try? await Task.sleep(for: .seconds(5)) }
                _ = await group.next()
                group.cancelAll()
            }
            await served.stop()
            Self.print(results, json: json)
        } catch {
            await served.stop()
            Output.fail(RadioSession.message(for: error), status: ExitStatus.of(error))
        }
    }

    static func print(_ results: [ChannelBench.Result], json: Bool) {
        for result in results {
            if json {
                Output.json(
                    .fields([
                        "direction": .string(result.direction.rawValue), "bytes": .int(result.figures.bytes),
                        "seconds": .double(result.figures.seconds), "kbps": .double(result.figures.kbps),
                    ]))
            } else {
                Output.line("\(result.direction.rawValue): \(result.figures.text)")
            }
        }
    }
}

/// A limit on a whole command: past it, the process exits with the timeout status (a wait on a
/// channel or a link cannot always be cancelled, so nothing waits for one to end).
enum Deadline {
    static func within<T: Sendable>(_ limit: Duration, _ operation: String, _ body: () async throws -> T) async throws -> T {
        let watchdog = Task {
            try await Task.sleep(for: limit)
            Output.fail(BluetoothError.timeout(operation: operation, after: limit).description, status: ExitStatus.timeout)
        }
        defer { watchdog.cancel() }
        return try await body()
    }
}
