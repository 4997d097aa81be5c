import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP

/// What serving a PSM as a peripheral needs: a radio, a name, an address, security.
struct ChannelPeripheralOptions: ParsableArguments {
    @Option(help: "The name it advertises.")
    var name: String = "Harald L2CAP"

    @Option(
        name: .customLong("address"),
        help: ArgumentHelp("A static random address to advertise from (e.g. C0:00:00:00:00:01; default: the controller's).", valueName: "ADDRESS"))
    var ownAddress: String?

    @Option(help: "What a central's link needs before a channel opens: none, encrypted (any pairing) or authenticated (passkey or numeric comparison).")
    var security: ChannelSecurityChoice = .none

    func validate() throws {
        if let ownAddress {
            guard let parsed = BluetoothAddress(ownAddress, kind: .random), parsed.isStaticRandom else {
                throw ValidationError("'\(ownAddress)' is not a static random address (its two top bits are 11, e.g. C0:00:00:00:00:01)")
            }
        }
    }

    /// Advertises as a connectable device with no services of its own on `transport` (an HCI
    /// controller), answering pairing as a device does with `io` and the bond file's bonds.
    func start(on transport: String, bondFile: BondFileOptions, io: IOChoice) async throws -> ServedPeripheral {
        RadioSession.bootstrapLogging(level: .warning)
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = ownAddress.flatMap { BluetoothAddress($0, kind: .random) }
        let bonds = FileBondStore(fileURL: try bondFile.fileURL()) { key, address in key.resolves(address) }
        var authReq: AuthReq = [.bonding, .secureConnections]
        if io != .none { authReq.insert(.mitm) }
        let security = SecurityConfiguration(
            bonds: bonds, pairing: PairingConfiguration(ioCapability: io.capability, authReq: authReq),
            agent: CommandLinePairingAgent(passkey: nil, interactive: false))
        let definition = PeripheralDefinition(advertisement: PeripheralAdvertisement(name: name), services: [])
        do {
            return try await ServedPeripheral.start(
                definition, on: HCIPeripheralBackend(transport: transport, configuration: configuration, security: security))
        } catch {
            Output.fail("cannot serve on \(transport): \(error)", status: ExitStatus.unavailable)
        }
    }
}

/// `--security` of a served PSM.
enum ChannelSecurityChoice: String, ExpressibleByArgument, CaseIterable {
    case none, encrypted, authenticated

    var level: SecurityLevel {
        switch self {
        case .none: .none
        case .encrypted: .encrypted
        case .authenticated: .authenticated
        }
    }
}

/// Prints `harald: <message>` on stderr (stdout carries the channel's data).
func note(_ message: String) {
    FileHandle.standardError.write(Data(("harald: " + message + "\n").utf8))
}

/// `harald l2cap listen --psm N`: be a device serving a PSM, netcat-like.
struct L2CAPListen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Advertise as a connectable device and serve a PSM: the channel to stdout, stdin to the channel.",
        discussion: """
            Serves until SIGINT or SIGTERM (exit 0). One channel at a time: a second central's \
            channel is closed at once, and the next channel opened after one closes gets the rest of \
            stdin. The end of stdin does not close a channel; the central does. Messages go to stderr. \
            Needs a radio: --transport tcp:HOST:PORT (Bumble's virtual controllers) or hci:N.
            """)

    @Option(help: "tcp:HOST:PORT (H4 over TCP) or hci:N (Linux HCI user channel).")
    var transport: String

    @Option(
        help: ArgumentHelp("The PSM served, decimal or 0x-hexadecimal (0x0001–0x00FF; 0x0080–0x00FF for apps).", valueName: "N"),
        transform: ChannelOptions.psm(from:))
    var psm: L2CAPPSM

    @Option(help: ArgumentHelp("The largest SDU this side takes, in bytes (64–65535).", valueName: "N"))
    var mtu: Int = 2048

    @OptionGroup var peripheral: ChannelPeripheralOptions

    @OptionGroup var bondFile: BondFileOptions

    @Option(help: "What this device can show and take when a central pairs with it (none: Just Works).")
    var io: IOChoice = .none

    func validate() throws {
        if try TransportChoice(parsing: transport) == .simulator { throw ValidationError("listen needs a radio: --transport tcp:HOST:PORT or hci:N") }
        guard (64...65535).contains(mtu) else { throw ValidationError("--mtu must lie within 64…65535") }
    }

    func run() async throws {
        StandardOutput.ignoreBrokenPipes()
        let served = try await peripheral.start(on: transport, bondFile: bondFile, io: io)
        let server: L2CAPChannelServer
        do {
            server = try await served.serveL2CAPChannels(
                psm: psm, security: peripheral.security.level, options: L2CAPChannelOptions(mtu: mtu, mps: min(247, mtu)))
        } catch {
            await served.stop()
            Output.fail("cannot serve \(psm): \(error)", status: ExitStatus.of(error))
        }
        note("listening on \(server.psm) as \"\(peripheral.name)\" on \(transport)")
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Serve.waitForStop(seconds: nil) }
            group.addTask { await ChannelPipe.listen(server, report: note) }
            _ = await group.next()
            group.cancelAll()
        }
        await server.stop()
        await served.stop()
        note("stopped")
    }
}
