import ArgumentParser
import Harald
import HaraldGoPro
import HaraldProfiles

/// `harald gopro watch ADDRESS --statuses 10,13,35 [--count N]`: registers for status pushes and
/// prints one line per push.
struct GoProWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Register for status pushes of an Open GoPro camera and print each push.",
        discussion: """
            With --json, one line per push: {"statuses": {"<id>": HEX, …}, "known": {…}} with only \
            the statuses the push carries. Ends after --count pushes or --timeout seconds.
            """)

    @OptionGroup var radio: RadioOptions
    @OptionGroup var device: DeviceOptions
    @Option(help: "Status IDs to register for, comma-separated (e.g. 10,13,35).") var statuses: String
    @Option(help: "Stop after this many pushes.") var count: Int?
    @Option(help: "Stop after this many seconds.") var timeout: Double = 30

    func validate() throws {
        _ = try Self.parse(statuses)
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
    }

    static func parse(_ text: String) throws -> [GoProStatusID] {
        let ids = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !ids.isEmpty else { throw ValidationError("--statuses needs at least one status ID") }
        return try ids.map { field in
            guard let id = UInt8(field) else { throw ValidationError("'\(field)' is not a status ID (0…255)") }
            return GoProStatusID(id)
        }
    }

    func run() async throws {
        let ids = try Self.parse(statuses)
        let json = radio.json
        let limit = count
        let duration = Duration.milliseconds(Int64(max(0, timeout) * 1000))
        try await GoProCameraSession.run(radio, device) { camera in
            let watch = try await camera.watchStatuses(ids)
            if !json { Output.line("registered: " + GoProCameraSession.lines(statuses: watch.current).joined(separator: ", ")) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var received = 0
                    for await values in watch.statusUpdates {
                        if json {
                            Output.json(.object(GoProCameraSession.describe(statuses: values)))
                        } else {
                            Output.line(GoProCameraSession.lines(statuses: values).joined(separator: ", "))
                        }
                        received += 1
                        if let limit, received >= limit { return }
                    }
                }
                group.addTask { try await camera.clock.sleep(for: duration) }
                try await group.next()
                group.cancelAll()
            }
        }
    }
}
