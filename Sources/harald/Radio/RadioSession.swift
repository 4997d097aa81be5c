import ArgumentParser
import Foundation
import Harald
import HaraldHCIBackend

/// Opens the backend for a transport and runs a command's body against a `Central` on it.
enum RadioSession {
    static func run(_ options: RadioOptions, _ body: @escaping @Sendable (Central) async throws -> Void) async throws {
        let transport = try options.transportChoice()
        switch transport {
        case .simulator:
            throw ValidationError("the simulator transport is not wired into this build yet")
        case .tcp, .hci:
            let backend: HCICentralBackend
            do {
                backend = try await HCICentralBackend.open(transport: transport.description, btsnoop: options.btsnoop)
            } catch {
                Output.fail("\(error)")
            }
            let central = Central(backend: backend)
            do {
                try await body(central)
            } catch {
                await backend.close()
                Output.fail(Self.message(for: error))
            }
            await backend.close()
        }
    }

    /// One clear line for an error.
    static func message(for error: any Error) -> String {
        if let error = error as? BluetoothError { return error.description }
        if error is CancellationError { return "cancelled" }
        return "\(error)"
    }
}
