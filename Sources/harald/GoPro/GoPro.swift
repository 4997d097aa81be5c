import ArgumentParser
import Foundation

/// `harald gopro …`: the Open GoPro BLE protocol (packets, messages, and, with a camera, its
/// commands). Each subcommand is one line in `subcommands`.
struct GoPro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gopro",
        abstract: "Open GoPro: decode and fragment packets, talk to a camera.",
        subcommands: [
            GoProDecode.self,
            GoProFragment.self,
            GoProStatus.self,
            GoProWatch.self,
            GoProShutter.self,
            GoProSetting.self,
        ]
    )

    /// Exit status for a usage error (bad option value).
    static let usageError: Int32 = 64
    /// Exit status for bad data (malformed hex, packets or messages).
    static let dataError: Int32 = 65

    /// Writes `error: <message>` as one line on stderr and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        let line = "error: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        Foundation.exit(status)
    }
}
