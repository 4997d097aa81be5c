import ArgumentParser
import Foundation
import HaraldCodec
import HaraldMiBand
import HaraldProfiles

/// `harald decode <UUID> <HEX>`: decodes one characteristic value and prints it as one JSON
/// object on stdout.
///
/// Exit status: 0 decoded; 64 usage error (unknown or malformed UUID, missing argument);
/// 65 bad data (malformed hex, or bytes that are not a valid value). On failure stdout stays
/// empty and stderr gets one line `error: …`.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decode one characteristic value to JSON.",
        discussion: """
            UUID: 16-bit (2A37 or 0x2A37) or 128-bit. HEX: the value's bytes in hex, any case, \
            spaces or colons allowed (quote it, or pass several words). Exit status: 0 decoded, \
            64 usage error or unknown characteristic, 65 malformed hex or value.
            """)

    @Flag(name: .long, help: "List the characteristics this command knows.")
    var list = false

    @Argument(help: "Characteristic UUID, such as 2A37, 0x2A37 or a 128-bit UUID.")
    var uuid: String?

    @Argument(help: "The value's bytes in hex, such as \"1e 55 32 00 21 00\".")
    var hex: [String] = []

    static let usageError: Int32 = 64
    static let dataError: Int32 = 65

    func run() throws {
        let registry = CharacteristicRegistry.harald
        if list {
            for entry in registry.entries {
                print("\(entry.uuid.uuidString)  \(entry.name)  (\(entry.typeName))")
            }
            return
        }
        guard let uuidText = uuid else { fail("missing UUID; usage: harald decode <UUID> <HEX>", status: Self.usageError) }
        guard !hex.isEmpty else { fail("missing HEX value; usage: harald decode <UUID> <HEX>", status: Self.usageError) }
        guard let uuid = BluetoothUUID(uuidText) else {
            fail("'\(uuidText)' is not a Bluetooth UUID (use 2A37, 0x2A37 or a 128-bit UUID)", status: Self.usageError)
        }
        guard let entry = registry.entry(for: uuid) else {
            fail("unknown characteristic \(uuid.uuidString); 'harald decode --list' shows the known ones", status: Self.usageError)
        }
        let bytes: [UInt8]
        do {
            bytes = try Hex.decode(hex.joined(separator: " "))
        } catch {
            fail("malformed hex value: \(error)", status: Self.dataError)
        }
        do {
            let json = try entry.describe(bytes)
            print(json.jsonText)
        } catch {
            fail("\(error)", status: Self.dataError)
        }
    }

    /// Writes `error: <message>` as one line on stderr and exits with `status`.
    private func fail(_ message: String, status: Int32) -> Never {
        let line = "error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        Foundation.exit(status)
    }
}

extension CharacteristicRegistry {
    /// What the CLI decodes and names: the standard SIG values and the kits' vendor values (the
    /// Mi Band's realtime steps).
    static let harald: CharacteristicRegistry = {
        var registry = CharacteristicRegistry.standard
        for type in CharacteristicRegistry.miBandTypes { registry.register(type) }
        return registry
    }()
}
