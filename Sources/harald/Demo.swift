import ArgumentParser
import HaraldCodec

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Decode sample values and show what Harald did.")
    func run() throws {
        print("demo")
    }
}
