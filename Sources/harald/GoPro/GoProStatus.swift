import ArgumentParser
import Harald
import HaraldGoPro
import HaraldProfiles

/// `harald gopro status ADDRESS`: every status of the camera (Get All Statuses, query 0x13).
struct GoProStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print every status of an Open GoPro camera.",
        discussion: """
            Connects, waits for the camera to be ready, and asks for all statuses. With --json: \
            {"statuses": {"<id>": HEX, …}, "known": {"<id>": {"name", "value"}, …}} (values big-endian).
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions

    func run() async throws {
        let json = radio.json
        try await GoProCameraSession.run(radio, device) { camera in
            let values = try await camera.statuses()
            if json {
                Output.json(.object(GoProCameraSession.describe(statuses: values)))
            } else {
                for line in GoProCameraSession.lines(statuses: values) { Output.line(line) }
            }
        }
    }
}
