import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldTerminal

/// `harald l2cap`: connection-oriented channels, netcat-like.
struct L2CAPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "l2cap",
        abstract: "Connection-oriented L2CAP channels: copy bytes to and from a PSM, serve one, measure throughput.",
        discussion: """
            Data is copied byte for byte: nothing is added, dropped or re-encoded, so binary files \
            and pipes work. Messages go to stderr; stdout carries only the channel's data (or the \
            bench's figures).
            """,
        subcommands: [L2CAPConnect.self, L2CAPListen.self, L2CAPBench.self])
}

/// `--mode`: the flow control mode a channel is opened in.
enum ChannelModeChoice: String, ExpressibleByArgument, CaseIterable {
    case le, enhanced

    var mode: L2CAPChannelMode { self == .le ? .leCreditBased : .enhancedCreditBased }
}

/// The options naming and shaping a channel.
struct ChannelOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("The PSM, decimal or 0x-hexadecimal (0x0001–0x00FF; 0x0080–0x00FF for apps).", valueName: "N"),
        transform: ChannelOptions.psm(from:))
    var psm: L2CAPPSM

    @Option(help: ArgumentHelp("The largest SDU this side takes, in bytes (23–65535; at least 64 with --mode enhanced).", valueName: "N"))
    var mtu: Int = 2048

    @Option(help: "le (LE Credit Based Flow Control Mode) or enhanced (Enhanced Credit Based, Bluetooth 5.2).")
    var mode: ChannelModeChoice = .le

    /// `128` or `0x80`, within the LE range 0x0001–0x00FF.
    static func psm(from text: String) throws -> L2CAPPSM {
        guard let value = NumberArgument.value(of: text), (0x0001...0x00FF).contains(value) else {
            throw ValidationError("'\(text)' is not an LE PSM: give 0x0001…0x00FF (decimal or 0x-hexadecimal)")
        }
        return L2CAPPSM(UInt16(value))
    }

    func validate() throws {
        guard (23...65535).contains(mtu) else { throw ValidationError("--mtu must lie within 23…65535") }
        if mode == .enhanced, mtu < 64 { throw ValidationError("--mode enhanced needs --mtu 64 or more") }
    }

    /// The options the channel is opened or served with (an MPS of 247 at most, never over the MTU).
    var channelOptions: L2CAPChannelOptions {
        L2CAPChannelOptions(mode: mode.mode, mtu: mtu, mps: min(247, max(mode == .enhanced ? 64 : 23, mtu)))
    }
}

/// `harald l2cap connect ADDRESS --psm N`: netcat to a peripheral's PSM.
struct L2CAPConnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Open a channel to a device's PSM: stdin to the channel, the channel to stdout.",
        discussion: """
            Ends when stdin has ended and the device has sent nothing for --linger seconds, or when \
            the device closes the channel (exit 0). A refused channel exits with 76 and the reason \
            (for example "PSM not supported") on stderr. Channels that need an encrypted link pair \
            (or re-encrypt with the bond of --bonds) and are asked for again.
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @OptionGroup var channel: ChannelOptions

    @Option(help: ArgumentHelp("Seconds of quiet from the device, after stdin has ended, before closing.", valueName: "SECONDS"))
    var linger: Double = 1

    func validate() throws {
        guard linger >= 0, linger <= 86400 else { throw ValidationError("--linger must lie within 0…86400 seconds") }
    }

    func run() async throws {
        StandardOutput.ignoreBrokenPipes()
        let device = self.device
        let psm = channel.psm
        let options = channel.channelOptions
        let linger = Duration.milliseconds(Int64(linger * 1000))
        try await RadioSession.run(radio) { central in
            let connection = try await device.connect(central)
            let channel = try await connection.openL2CAPChannel(psm: psm, options: options)
            try await ChannelPipe.connect(channel, linger: linger)
            await connection.disconnect()
        }
    }
}
