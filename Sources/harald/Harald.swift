import ArgumentParser

@main
struct HaraldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harald",
        abstract: "Bluetooth Low Energy with types instead of bytes.",
        subcommands: [
            Demo.self, Decode.self, Scan.self, Dump.self, ReadCommand.self, WriteCommand.self, Subscribe.self, PairCommand.self, BondsCommand.self,
            HeartRateMonitorCommand.self, GoPro.self, MiBandCommand.self, Serve.self,
        ]
    )
}
