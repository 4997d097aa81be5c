import ArgumentParser

@main
struct HaraldCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harald",
        abstract: "Bluetooth Low Energy with types instead of bytes.",
        discussion: """
            Radio commands take --transport sim (built-in virtual devices, the default), tcp:HOST:PORT \
            or hci:N. Text output names services, characteristics, descriptors and companies after the \
            Bluetooth SIG's assigned numbers; --json prints JSON lines for scripts.

            Shell completion: harald --generate-completion-script bash|zsh|fish.

            \(ExitStatus.summary)
            """,
        version: HaraldVersion.string,
        subcommands: [
            Demo.self, Decode.self, Scan.self, Dump.self, ReadCommand.self, WriteCommand.self, Subscribe.self, PairCommand.self, BondsCommand.self,
            HeartRateMonitorCommand.self, GoPro.self, MiBandCommand.self, Serve.self, L2CAPCommand.self, GatewayCommand.self,
            FleetCommand.self,
        ]
    )
}
