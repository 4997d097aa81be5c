import Harald
import HaraldSimulator
import Testing

/// `Central.withReconnection` on the simulator, in virtual time.
@Suite("Reconnecting after a lost link")
struct ReconnectionTests {
    /// A device kit's own error type that can mean "the link went away".
    private enum KitError: Error, DisconnectionReporting {
        case linkGone
        case refused
        var disconnectReason: DisconnectReason? { self == .linkGone ? .connectionLost : nil }
    }

    private func inWorld<T: Sendable>(_ body: @escaping @Sendable (Central, Simulator, VirtualPeripheral) async throws -> T) async throws -> T {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(5))
        return try await simulation.run(timeLimit: .seconds(3600)) { try await body(central, simulator, strap) }
    }

    @Test func aKitErrorThatReportsADisconnectionIsReconnectedAfter() async throws {
        let runs = try await inWorld { central, _, strap in
            try await central.withReconnection(to: strap.identifier, policy: ReconnectPolicy(maximumAttempts: 1), connectTimeout: .seconds(5)) {
                _, run in
                if run == 0 { throw KitError.linkGone }
                return run
            }
        }
        #expect(runs == 1)
    }

    @Test func aPeerThatRemovedItsPairingInformationEndsTheLoopAtOnce() async throws {
        let (error, runs) = try await inWorld { central, _, strap in
            let runs = Locked(0)
            let error = await #expect(throws: BluetoothError.self) {
                try await central.withReconnection(to: strap.identifier, policy: ReconnectPolicy(maximumAttempts: 5), connectTimeout: .seconds(5)) {
                    _, _ in
                    runs.withLock { $0 += 1 }
                    throw BluetoothError.disconnected(.peerRemovedPairingInformation)
                }
            }
            return (error, runs.value)
        }
        #expect(error == .disconnected(.peerRemovedPairingInformation))
        #expect(runs == 1, "no reconnection can help: the bond must be renewed")
    }

    @Test func aKitErrorThatIsNotADisconnectionEndsTheLoop() async throws {
        let error = try await inWorld { central, _, strap in
            await #expect(throws: KitError.refused) {
                try await central.withReconnection(to: strap.identifier, policy: ReconnectPolicy(maximumAttempts: 5), connectTimeout: .seconds(5)) {
                    _, _ in throw KitError.refused
                }
            }
        }
        #expect(error == .refused)
    }

    @Test func resettingAfterEachConnectionReconnectsEveryTimeTheLinkDrops() async throws {
        let runs = try await inWorld { central, _, strap in
            let policy = ReconnectPolicy(maximumAttempts: 1, resetsAfterConnecting: true)
            return try await central.withReconnection(to: strap.identifier, policy: policy, connectTimeout: .seconds(5)) { _, run in
                if run < 4 { throw BluetoothError.disconnected(.connectionLost) }
                return run
            }
        }
        #expect(runs == 4)
    }

    @Test func withoutResettingTheAttemptsOfTheWholeSessionAreCounted() async throws {
        let error = try await inWorld { central, _, strap in
            await #expect(throws: BluetoothError.disconnected(.connectionLost)) {
                try await central.withReconnection(to: strap.identifier, policy: ReconnectPolicy(maximumAttempts: 1), connectTimeout: .seconds(5)) {
                    _, run in
                    if run < 4 { throw BluetoothError.disconnected(.connectionLost) }
                    return run
                }
            }
        }
        #expect(error != nil)
    }

    @Test func anUnauthorizedRadioEndsTheLoopWithoutRetrying() async throws {
        let error = try await inWorld { central, simulator, strap in
            await simulator.setRadioState(.unauthorized)
            return await #expect(throws: BluetoothError.self) {
                try await central.withReconnection(to: strap.identifier, policy: ReconnectPolicy(maximumAttempts: 100)) { _, _ in () }
            }
        }
        #expect(error == .radioUnavailable(.unauthorized))
    }
}
