import ArgumentParser

@main
struct HaraldCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "harald",
        abstract: "Bluetooth Low Energy with types instead of bytes.",
        subcommands: [Demo.self, Decode.self]
    )
}
