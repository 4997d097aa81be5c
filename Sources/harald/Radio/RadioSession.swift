import ArgumentParser
import Foundation
import Harald

/// Opens the backend for a transport and runs a command's body against a `Central` on it.
enum RadioSession {
    static func run(_ options: RadioOptions, _ body: @escaping @Sendable (Central) async throws -> Void) async throws {
        let transport = try options.transportChoice()
        switch transport {
        case .simulator:
            throw ValidationError("the simulator transport is not wired into this build yet")
        case .tcp, .hci:
            throw ValidationError("transport \(transport) is not wired into this build yet")
        }
    }
}
