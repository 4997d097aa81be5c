import ArgumentParser
import Foundation
import Harald
import HaraldCore
import HaraldGoProSimulation
import HaraldHCIBackend
import HaraldMiBandSimulation
import HaraldSimulator
import Logging

/// Opens the backend for a transport and runs a command's body against a `Central` on it.
enum RadioSession {
    static func run(_ options: RadioOptions, _ body: @escaping @Sendable (Central) async throws -> Void) async throws {
        try await run(options, secured: { central, _ in try await body(central) })
    }

    /// Runs `body` against a `Central` on the options' transport. On a transport that pairs, links
    /// are secured on demand with the bond file of `--bonds` (a refused request encrypts with the
    /// stored bond, else pairs and stores one), and `body` gets the run's ``PairingSession``; on the
    /// simulator it gets nil.
    static func run(
        _ options: RadioOptions, secured body: @escaping @Sendable (Central, PairingSession?) async throws -> Void
    ) async throws {
        bootstrapLogging(level: options.effectiveLogLevel)
        let transport = try options.transportChoice()
        switch transport {
        case .simulator:
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
                throw ValidationError("the simulator transport needs task executors (macOS 15 or later)")
            }
            // The virtual devices of `harald demo`, in virtual time: a 30 s scan ends at once.
            // They do not pair yet (TransportChoice.pairs): no pairing session here.
            let simulation = Simulation()
            let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), .actionCamera(), .fitnessBand()])
            let central = Central(backend: simulator.backend, clock: simulation.clock)
            do {
                try await simulation.run(timeLimit: .seconds(24 * 3600)) { try await body(central, nil) }
            } catch {
                Output.fail(Self.message(for: error), status: ExitStatus.of(error))
            }
        case .tcp, .hci:
            let session = try PairingSession(options)
            let logger = Logger(label: "harald.pairing")
            let backend: HCICentralBackend
            do {
                backend = try await HCICentralBackend.open(
                    transport: transport.description, btsnoop: options.btsnoop, security: session.configuration)
            } catch {
                Output.fail("\(error)", status: ExitStatus.unavailable)
            }
            let central = Central(backend: backend)
            do {
                try await body(central, session)
            } catch {
                await session.logOutcome(logger)
                await backend.close()
                Output.fail(session.message(for: error, base: Self.message(for: error)), status: ExitStatus.of(error))
            }
            await session.logOutcome(logger)
            await backend.close()
        }
    }

    /// Logs go to stderr (stdout carries the command's output): from `level` up (warning unless
    /// `--log-level` or `--verbose` say otherwise). Bootstrapping twice would trap, hence the guard.
    private static let logging = LoggingOnce()

    static func bootstrapLogging(level: Logger.Level) {
        logging.run {
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }

    /// One clear line for an error.
    static func message(for error: any Error) -> String {
        if let error = error as? BluetoothError { return error.description }
        if error is CancellationError { return "cancelled" }
        return "\(error)"
    }
}

/// Runs a closure once per process.
final class LoggingOnce: Sendable {
    private let done = Locked(false)

    func run(_ body: () -> Void) {
        done.withLock { done in
            guard !done else { return }
            done = true
            body()
        }
    }
}
