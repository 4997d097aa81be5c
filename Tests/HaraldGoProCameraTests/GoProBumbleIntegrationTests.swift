import Foundation
import Harald
import HaraldCore
import HaraldGoPro
import HaraldHCIBackend
import Testing

/// Where scripts/integration put the GoPro bench, or nil when it is not running.
enum GoProBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_GOPRO_TRANSPORT"] }
    /// The Bumble camera of this suite (scripts/bumble/peer.py kind `gopro`), by static random address.
    static var camera: PeripheralIdentifier? {
        ProcessInfo.processInfo.environment["HARALD_GOPRO_CAMERA"]
            .flatMap { BluetoothAddress($0, kind: .random) }.map { PeripheralIdentifier(address: $0) }
    }
    static var isConfigured: Bool { transport != nil && camera != nil }

    /// Opens a fresh HCI backend, connects to the camera and runs `body` with it; closes everything
    /// after, also when `body` throws. Real time: generous timeouts for a loaded CI machine.
    ///
    /// The camera needs an encrypted link (scripts/integration starts it with `--encrypted`), so the
    /// backend secures links with `bonds` (a fresh in-memory store unless given): the first refused
    /// request pairs (Just Works) and stores the bond, a later connection with the same store
    /// re-encrypts with it.
    static func withCamera<T: Sendable>(
        bonds: InMemoryBondStore = InMemoryBondStore(), agent: any PairingAgent = AutomaticPairingAgent(),
        _ body: @escaping @Sendable (GoProCamera) async throws -> T
    ) async throws -> T {
        try await withCamera(bonds: bonds, agent: agent) { camera, _ in try await body(camera) }
    }

    /// ``withCamera(bonds:agent:_:)`` with the connection too, to ask it about its security.
    static func withCamera<T: Sendable>(
        bonds: InMemoryBondStore = InMemoryBondStore(), agent: any PairingAgent = AutomaticPairingAgent(),
        _ body: @escaping @Sendable (GoProCamera, PeripheralConnection) async throws -> T
    ) async throws -> T {
        let transport = try #require(transport)
        let peripheral = try #require(camera)
        let backend = try await HCICentralBackend.open(transport: transport, security: HCISecurityConfiguration(bonds: bonds, agent: agent))
        do {
            let central = Central(backend: backend, defaultTimeout: .seconds(20))
            try await central.waitUntilPoweredOn(timeout: .seconds(10))
            let connection = try await central.connect(to: peripheral, timeout: .seconds(20))
            let camera = GoProCamera(connection: connection, requestTimeout: .seconds(10))
            // A guard against hangs (a push that never comes), not a timing assertion.
            let result = try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await body(camera, connection) }
                group.addTask {
                    try await Task.sleep(for: .seconds(120))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let result = first else {
                    throw GoProError.timeout(request: "the test body", after: .seconds(120))
                }
                return result
            }
            await camera.stop()
            await connection.disconnect()
            await backend.close()
            return result
        } catch {
            await backend.close()
            throw error
        }
    }
}

/// The GoPro kit over Harald's HCI host stack against the Bumble camera, which fragments its
/// answers across 20-byte packets as a real camera does (Get Hardware Info: the 6 packets of the
/// Open GoPro tutorial; Get All Statuses: 20 packets). Runs only under scripts/integration.
@Suite(
    "Bumble integration: GoPro kit against the Bumble camera", .serialized,
    .enabled(if: GoProBench.isConfigured, "set HARALD_GOPRO_TRANSPORT and HARALD_GOPRO_CAMERA (run scripts/integration)"))
struct GoProBumbleIntegrationTests {
    @Test func readinessPollsThroughABootingCameraAndReturnsItsHardwareInfo() async throws {
        // scripts/integration starts this camera with --boot-polls 2: the first two Get Hardware
        // Info requests of a connection are answered with status error.
        let (info, answers) = try await GoProBench.withCamera { camera in
            let info = try await camera.waitUntilReady(timeout: .seconds(20), pollInterval: .milliseconds(100))
            return (info, await camera.statistics.messages)
        }
        #expect(answers == 3)
        #expect(info.modelNumber == 62)
        #expect(info.modelName == "HERO12 Black")
        #expect(info.firmwareVersion == "H23.01.01.99.56")
        #expect(info.serialNumber == "C3501324500702")
        #expect(info.accessPointSSID == "HERO12 Blackdebug")
    }

    @Test func getAllStatusesReassemblesTheTwentyPacketAnswer() async throws {
        let values = try await GoProBench.withCamera { camera in try await camera.statuses() }
        #expect(values.count == 88)
        #expect(values.integer(GoProStatusID(21)) == 16036)
        #expect(values.string(.accessPointSSID) == "GP24500456")
        #expect(values.integer(.remainingSpace) == 26_575_456)
        #expect(values[GoProStatusID(107)].map(Array.init) == [0xFF, 0xFF, 0xFF, 0xFF])
    }

    @Test func openGoProVersionAndKeepAlive() async throws {
        let version = try await GoProBench.withCamera { camera in
            try await camera.sendKeepAlive()
            return try await camera.openGoProVersion()
        }
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
    }

    @Test func aSettingChangeIsVerifiedAndAnInvalidValueRolledBack() async throws {
        let (failure, values) = try await GoProBench.withCamera { camera in
            try await camera.configure([(.videoResolution, 4)])
            var failure: ConfigurationFlow.Failure?
            do {
                try await camera.configure([(.videoLens, 2), (.framesPerSecond, 0xEE)])
            } catch let error as ConfigurationFlow.Failure {
                failure = error
            }
            let values = try await camera.settings([.videoResolution, .videoLens, .framesPerSecond])
            try await camera.configure([(.videoResolution, 9)])  // as the peer started
            return (failure, values)
        }
        #expect(values.integer(.videoResolution) == 4)
        #expect(values.integer(.videoLens) == 0)
        #expect(failure?.rolledBack.count == 1)
        #expect(failure?.underlying as? GoProError == .rejected(request: "set framesPerSecond", status: .invalidParameter))
    }

    @Test func choosing5KPushesTheFrameRatesItStillAllows() async throws {
        let push = try await GoProBench.withCamera { camera in
            let pushes = await camera.pushes()
            try await camera.registerForSettingCapabilityUpdates([.framesPerSecond])
            try await camera.set(.videoResolution, to: 24)
            var capabilities: GoProValues?
            for await push in pushes {
                if case let .settingCapabilities(values) = push {
                    capabilities = values
                    break
                }
            }
            try await camera.unregisterFromSettingCapabilityUpdates([.framesPerSecond])
            try await camera.set(.videoResolution, to: 9)  // as the peer started
            return capabilities
        }
        #expect(push?.map { $0.value.first ?? 0xFF } == [5, 8, 10])
    }

    @Test func theShutterPushesEncodingAndVideoProgressToARegisteredCentral() async throws {
        let (current, updates) = try await GoProBench.withCamera { camera in
            let watch = try await camera.watchStatuses([.encoding, .videoEncodingDuration])
            try await camera.startRecording(timeout: .seconds(20))
            var updates: [GoProValues] = []
            for await values in watch.statusUpdates {
                updates.append(values)
                if values.integer(.videoEncodingDuration).map({ $0 >= 1 }) == true { break }
            }
            try await camera.stopRecording(timeout: .seconds(20))
            return (watch.current, updates)
        }
        #expect(current.bool(.encoding) == false)
        #expect(updates.first?.bool(.encoding) == true)
        #expect(updates.last?.integer(.videoEncodingDuration).map { $0 >= 1 } == true)
    }

    @Test func theFirstConnectionPairsAndTheNextReEncryptsWithTheStoredBond() async throws {
        // One bond store for both connections, and an agent that counts how often pairing asked
        // it (once per pairing: the camera has no IO, so every pairing is Just Works).
        let bonds = InMemoryBondStore()
        let agent = CountingPairingAgent()
        let first = try await GoProBench.withCamera(bonds: bonds, agent: agent) { camera, connection in
            let version = try await camera.openGoProVersion()
            return (version, await connection.security())
        }
        #expect(first.0 == GoProOpenGoProVersion(major: 2, minor: 0))
        #expect(agent.justWorksConfirmations == 1)
        #expect(first.1?.level == .encrypted)
        #expect(first.1?.isBonded == true)
        let stored = await bonds.allBonds()
        #expect(stored.map(\.identityAddress) == [GoProBench.camera?.address])
        #expect(stored.first?.longTermKey != nil)

        let second = try await GoProBench.withCamera(bonds: bonds, agent: agent) { camera, connection in
            let statuses = try await camera.statuses()
            return (statuses.count, await connection.security())
        }
        #expect(second.0 == 88)
        #expect(agent.justWorksConfirmations == 1, "the second connection re-encrypted without pairing")
        #expect(second.1?.level == .encrypted)
        #expect(second.1?.isBonded == true)
        #expect(await bonds.allBonds() == stored)
    }
}

/// Confirms Just Works and counts the confirmations: one per pairing with a camera without IO.
final class CountingPairingAgent: PairingAgent {
    private let count = Locked(0)
    var justWorksConfirmations: Int { count.withLock { $0 } }

    func confirmJustWorks() async -> Bool {
        count.withLock { $0 += 1 }
        return true
    }

    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { false }
    func enterPasskey() async -> UInt32? { nil }
    func displayPasskey(_ passkey: UInt32) async {}
}
