import ArgumentParser
import Harald
import HaraldGoPro
import HaraldProfiles

/// `harald gopro shutter ADDRESS on|off`: starts or stops recording and checks the camera's
/// encoding status.
struct GoProShutter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shutter",
        abstract: "Start (on) or stop (off) recording on an Open GoPro camera.",
        discussion: "Sends Set Shutter, then checks the encoding status (10). With --json: {\"shutter\": \"on\", \"encoding\": true}.")

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Argument(help: "on or off.") var state: String

    func validate() throws {
        guard state == "on" || state == "off" else { throw ValidationError("the shutter state must be on or off, not '\(state)'") }
    }

    func run() async throws {
        let on = state == "on"
        let json = radio.json
        try await GoProCameraSession.run(radio, device) { camera in
            if on { try await camera.startRecording() } else { try await camera.stopRecording() }
            let encoding = try await camera.statuses([.encoding]).bool(.encoding) ?? false
            if json {
                Output.json(.fields(["shutter": .string(on ? "on" : "off"), "encoding": .bool(encoding)]))
            } else {
                Output.line(encoding ? "recording" : "not recording")
            }
        }
    }
}
