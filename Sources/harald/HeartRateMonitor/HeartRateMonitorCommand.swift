import ArgumentParser

/// `harald hrm …`: the heart-rate monitor kit on the command line.
struct HeartRateMonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrm", abstract: "Heart-rate sensors (any Bluetooth SIG Heart Rate service).",
        subcommands: [Monitor.self])
}
