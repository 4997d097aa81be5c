import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldProfiles
import HaraldSMP
import Logging

/// Where the radio commands find a Bluetooth controller.
enum TransportChoice: Equatable, CustomStringConvertible {
    /// The built-in virtual devices, in virtual time.
    case simulator
    /// A controller speaking H4 over TCP (Bumble's virtual controllers).
    case tcp(host: String, port: UInt16)
    /// A Linux HCI adapter through the user channel.
    case hci(index: UInt16)

    init(parsing text: String) throws {
        if text == "sim" {
            self = .simulator
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), colon > rest.startIndex else {
                throw ValidationError("transport '\(text)' must look like tcp:HOST:PORT")
            }
            self = .tcp(host: String(rest[..<colon]), port: port)
        } else if text.hasPrefix("hci:"), let index = UInt16(text.dropFirst(4)) {
            self = .hci(index: index)
        } else {
            throw ValidationError("unknown transport '\(text)'; use sim, tcp:HOST:PORT or hci:N")
        }
    }

    var description: String {
        switch self {
        case .simulator: "sim"
        case let .tcp(host, port): "tcp:\(host):\(port)"
        case let .hci(index): "hci:\(index)"
        }
    }
}

/// Options shared by every command that touches a radio.
struct RadioOptions: ParsableArguments {
    @Option(help: "sim (built-in virtual devices), tcp:HOST:PORT (H4 over TCP) or hci:N (Linux HCI user channel).")
    var transport: String = "sim"

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    @Flag(help: "Log protocol activity to stderr (the same as --log-level debug).")
    var verbose = false

    @Option(help: "Log to stderr from this level up (warning unless given; notice says whether a run paired or re-encrypted).")
    var logLevel: LogLevelChoice?

    @Option(
        help: ArgumentHelp(
            "Write a btsnoop capture of every HCI packet to this file (tcp and hci transports). Warning: a capture holds link keys "
                + "(LTKs, IRKs) in the clear, so whoever reads it can decrypt the recorded links; it is created mode 0600 (owner only).",
            valueName: "FILE"))
    var btsnoop: String?

    @OptionGroup var bondFile: BondFileOptions

    @Option(
        help: ArgumentHelp(
            "The passkey (0…999999) to type when the device displays one, answered without asking; without it, pairing asks on "
                + "the terminal. Never shown by this side: where this side displays, it shows a fresh random passkey each pairing.",
            valueName: "N"),
        transform: PairingOptions.passkey(from:))
    var passkey: UInt32?

    @Option(
        help: ArgumentHelp(
            "Show this passkey (0…999999) instead of a fresh random one where this side displays. Warning: a passkey shown "
                + "twice is no secret: one sniffed LE Secure Connections pairing reveals it, and whoever knows it can pair.",
            valueName: "N"),
        transform: PairingOptions.fixedPasskey(from:))
    var fixedPasskey: UInt32?

    @Option(help: "What this side can show and take when pairing (with the device's, it decides the pairing method).")
    var io: IOChoice = .keyboardDisplay

    func transportChoice() throws -> TransportChoice { try TransportChoice(parsing: transport) }

    /// The log level the options ask for: --log-level, else debug with --verbose, else warning.
    var effectiveLogLevel: Logger.Level { logLevel?.level ?? (verbose ? .debug : .warning) }
}

/// `--bonds FILE`: where bonds are kept.
struct BondFileOptions: ParsableArguments {
    @Option(
        name: .customLong("bonds"),
        help: ArgumentHelp(
            "The bond file (default: $XDG_CONFIG_HOME/harald/bonds.json, else ~/.config/harald/bonds.json; Application Support/Harald on macOS).",
            valueName: "FILE"))
    var path: String?

    /// The bond file's location; a usage error when there is no default location.
    func fileURL() throws -> URL {
        if let path {
            guard !path.isEmpty else { throw ValidationError("--bonds needs a file path") }
            return URL(fileURLWithPath: path)
        }
        do { return try FileBondStore.defaultFileURL() } catch { throw ValidationError("\(error); pass --bonds FILE") }
    }
}

/// `--log-level`.
enum LogLevelChoice: String, CaseIterable, ExpressibleByArgument {
    case trace, debug, info, notice, warning, error

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}

/// `--io`: this side's IO capability when pairing.
enum IOChoice: String, CaseIterable, ExpressibleByArgument {
    case displayOnly = "display-only"
    case keyboardOnly = "keyboard-only"
    case keyboardDisplay = "keyboard-display"
    case displayYesNo = "display-yes-no"
    case none

    var capability: IOCapability {
        switch self {
        case .displayOnly: .displayOnly
        case .keyboardOnly: .keyboardOnly
        case .keyboardDisplay: .keyboardDisplay
        case .displayYesNo: .displayYesNo
        case .none: .noInputNoOutput
        }
    }
}

/// A device address given on the command line, as `scan` prints it.
struct AddressArgument {
    let text: String
    let kind: BluetoothAddress.Kind?

    init(_ text: String, addressType: String?) throws {
        guard BluetoothAddress(text, kind: .random) != nil else {
            throw ValidationError("'\(text)' is not a device address (use the form F0:F1:F2:F3:F4:F5)")
        }
        self.text = text
        switch addressType {
        case nil: kind = nil
        case "public": kind = .public
        case "random": kind = .random
        case let other?: throw ValidationError("address type '\(other)' must be public or random")
        }
    }

    /// The peripheral identifier: directly when the address type is known, else by scanning
    /// for the address until `timeout`.
    func resolve(on central: Central, timeout: Duration) async throws -> PeripheralIdentifier {
        if let kind, let address = BluetoothAddress(text, kind: kind) { return PeripheralIdentifier(address: address) }
        let wanted = text.uppercased()
        let scan = central.scan(ScanRequest(duplicates: .reportOnce))
        do {
            return try await withThrowingTaskGroup(of: PeripheralIdentifier?.self) { group in
                group.addTask {
                    for try await advertisement in scan where advertisement.peripheral.address?.string == wanted {
                        return advertisement.peripheral
                    }
                    return nil
                }
                group.addTask {
                    try await central.clock.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                if let found = try await group.next() ?? nil { return found }
                throw BluetoothError.notFound("device \(text) did not advertise within \(timeout)")
            }
        }
    }
}

/// Output helpers: one line per event, text or JSON.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func json(_ value: JSONValue) { line(value.jsonText) }

    /// Prints `error: <message>` on stderr and exits with `status`.
    static func fail(_ message: String, status: Int32 = 1) -> Never {
        FileHandle.standardError.write(Data(("error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n").utf8))
        Foundation.exit(status)
    }
}
