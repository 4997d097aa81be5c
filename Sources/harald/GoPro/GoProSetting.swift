import ArgumentParser
import Harald
import HaraldCodec
import HaraldGoPro
import HaraldProfiles

/// `harald gopro setting ADDRESS ID VALUE`: changes one setting and verifies it by reading it
/// back (the configuration flow: a value that does not read back is rolled back).
struct GoProSetting: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setting",
        abstract: "Change one setting of an Open GoPro camera and verify it.",
        discussion: """
            VALUE is a number 0…255 (one byte, as most settings take) or 0x-prefixed hex bytes. With \
            --json: {"setting", "name", "value", "previous", "verified"} (values in hex).
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Argument(help: "Setting ID (e.g. 2 for video resolution).") var id: UInt8
    @Argument(help: "The new value: 0…255, or 0x-prefixed hex bytes.") var value: String

    func validate() throws { _ = try Self.parse(value) }

    static func parse(_ text: String) throws -> [UInt8] {
        if text.lowercased().hasPrefix("0x") {
            guard let bytes = try? Hex.decode(String(text.dropFirst(2))), !bytes.isEmpty, bytes.count <= 255 else {
                throw ValidationError("'\(text)' is not a hex value (0x then 1…255 bytes)")
            }
            return bytes
        }
        guard let byte = UInt8(text) else { throw ValidationError("'\(text)' is not a setting value (0…255 or 0x-prefixed hex)") }
        return [byte]
    }

    func run() async throws {
        let setting = GoProSettingID(id)
        let bytes = try Self.parse(value)
        let json = radio.json
        try await GoProCameraSession.run(radio, device) { camera in
            let previous = try await camera.settings([setting])[setting].map(Array.init) ?? []
            let flow = ConfigurationFlow(steps: [camera.settingStep(setting, to: bytes)])
            do {
                _ = try await flow.run(on: camera.connection)
            } catch let failure as ConfigurationFlow.Failure {
                // The flow wraps the camera's answer; report that, not the wrapper.
                if let cause = failure.underlying { throw cause }
                throw failure
            }
            if json {
                Output.json(
                    .fields([
                        "setting": .int(setting.rawValue), "name": setting.name.map(JSONValue.string),
                        "value": .string(bytes.hexString), "previous": .string(previous.hexString), "verified": .bool(true),
                    ]))
            } else {
                Output.line("\(setting) set to \(bytes.hexString) (was \(previous.hexString)), read back")
            }
        }
    }
}
