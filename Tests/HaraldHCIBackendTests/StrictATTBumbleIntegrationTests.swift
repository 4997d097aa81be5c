import Foundation
import Harald
import HaraldCore
import HaraldHCIBackend
import HaraldScenarioSuite
import HaraldTestSupport
import Testing

/// Where scripts/integration put the misbehaving peer, or nil when it is not running.
enum StrictBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_STRICT_TRANSPORT"] }
    /// The misbehaving peer's control port on 127.0.0.1 (a scenario peer, scripts/bumble/scenario_peer.py).
    static var controlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_STRICT_CONTROL_PORT"].flatMap { UInt16($0) } }
    /// The peer's static random address (scripts/integration gives it this one).
    static let address = BluetoothAddress("C0:00:00:00:00:0D", kind: .random)!
    static var isConfigured: Bool { transport != nil && controlPort != nil }
}

/// Harald's central against a Bumble peripheral that breaks the ATT/GATT rules on order
/// (scripts/bumble/misbehavior.py): every broken answer ends the operation with
/// ``BluetoothError/protocolViolation(_:handle:)`` naming the offending handle, and the central
/// closes the link, which the peer sees as Remote User Terminated Connection (0x13).
@Suite(
    "Bumble integration: misbehaving ATT servers are protocol violations", .serialized,
    .enabled(if: StrictBench.isConfigured, "set HARALD_STRICT_TRANSPORT and HARALD_STRICT_CONTROL_PORT (run scripts/integration)"))
struct StrictATTBumbleIntegrationTests {
    static let timeout = Duration.seconds(20)

    /// What the test does on the connection once the peer misbehaves.
    enum Step: Sendable {
        case discoverAll
        case readFirstReadable
        case discoverDescriptors
    }

    /// Sets the peer's `mode`, connects, runs `step`, and returns the protocol violation it threw
    /// after checking that the peer saw the link end with 0x13.
    func violation(_ mode: String?, during step: Step) async throws -> (detail: String, handle: UInt16?) {
        let transport = try #require(StrictBench.transport)
        let control = ScenarioControlChannel(port: try #require(StrictBench.controlPort))
        _ = try await control.send(["op": "reset"])
        let backend = try await HCICentralBackend.open(transport: transport)
        do {
            let result = try await withHangGuard(seconds: 60) { () async throws -> (String, UInt16?) in
                let central = Central(backend: backend, defaultTimeout: Self.timeout)
                let connection = try await central.connect(to: PeripheralIdentifier(address: StrictBench.address), timeout: Self.timeout)
                // Set after connecting: the connection's own set-up is served as usual.
                _ = try await control.send(["op": "misbehave", "mode": mode.map { $0 as Any } ?? NSNull()])
                let error: BluetoothError
                do {
                    try await Self.run(step, on: connection)
                    throw ScenarioFailure("\(step) succeeded against mode \(mode ?? "none")")
                } catch let caught as BluetoothError {
                    error = caught
                }
                guard case let .protocolViolation(detail, handle) = error else { throw ScenarioFailure("expected a protocol violation, got \(error)") }
                // The link is closed: later operations fail at once, and the peer saw why.
                do {
                    _ = try await connection.discoverAll()
                    throw ScenarioFailure("the connection still works after the violation")
                } catch let later as BluetoothError {
                    guard case .disconnected = later else { throw ScenarioFailure("after the violation: \(later)") }
                }
                try await Self.waitForPeerDisconnection(control, reason: 0x13)
                return (detail, handle)
            }
            await backend.close()
            return result
        } catch {
            await backend.close()
            throw error
        }
    }

    static func run(_ step: Step, on connection: PeripheralConnection) async throws {
        switch step {
        case .discoverAll:
            _ = try await connection.discoverAll()
        case .readFirstReadable:
            let tree = try await connection.discoverAll()
            let scenario = try #require(tree.first { $0.service.uuid == ScenarioProfile.service })
            let status = try #require(scenario.characteristics.first { $0.uuid == ScenarioProfile.status })
            _ = try await connection.readRaw(status)
        case .discoverDescriptors:
            let tree = try await connection.discoverAll()
            _ = try await connection.discoverDescriptors(ofAll: tree.flatMap(\.characteristics))
        }
    }

    static func waitForPeerDisconnection(_ control: ScenarioControlChannel, reason: Int) async throws {
        let clock = ContinuousClock()
        let start = clock.now
        while true {
            let reasons = try await control.send(["op": "disconnections"])["reasons"] as? [Int] ?? []
            if let first = reasons.first {
                guard first == reason else {
                    throw ScenarioFailure("the peer saw the link end with 0x\(String(first, radix: 16)), not 0x\(String(reason, radix: 16))")
                }
                return
            }
            guard clock.now - start < .seconds(20) else { throw ScenarioFailure("the peer never saw the link end") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("A Read Response longer than ATT_MTU − 1 bytes is a protocol violation")
    func oversizedReadResponse() async throws {
        let (detail, handle) = try await violation("oversized_read", during: .readFirstReadable)
        #expect(detail.contains("Read Response"), "\(detail)")
        #expect(detail.contains("longer than ATT_MTU"), "\(detail)")
        #expect(handle == nil)
    }

    @Test func overlappingServiceGroupsAreAViolationAtTheSecondGroup() async throws {
        let (detail, handle) = try await violation("overlapping_services", during: .discoverAll)
        #expect(handle == 0x0008, "\(detail)")
    }

    @Test func serviceGroupsInDecreasingHandleOrderAreAViolation() async throws {
        let (detail, handle) = try await violation("decreasing_services", during: .discoverAll)
        #expect(handle == 0x0010, "\(detail)")
    }

    @Test func aServiceGroupBeforeTheRequestedRangeIsAViolation() async throws {
        let (detail, handle) = try await violation("service_outside_range", during: .discoverAll)
        #expect(handle == 0x0003, "\(detail)")
        #expect(detail.contains("outside the requested range"), "\(detail)")
    }

    @Test func aServiceGroupAtHandleZeroIsAViolation() async throws {
        let (detail, handle) = try await violation("zero_handle_service", during: .discoverAll)
        #expect(handle == 0x0000, "\(detail)")
    }

    @Test func characteristicDeclarationsInDecreasingOrderAreAViolation() async throws {
        let (detail, handle) = try await violation("decreasing_characteristics", during: .discoverAll)
        #expect(detail.contains("not after the previous one"), "\(detail)")
        #expect(handle != nil)
    }

    @Test func aCharacteristicDeclarationAfterTheRequestedRangeIsAViolation() async throws {
        let (detail, handle) = try await violation("characteristic_outside_range", during: .discoverAll)
        #expect(detail.contains("outside the requested range"), "\(detail)")
        #expect(handle != nil)
    }

    @Test func aCharacteristicDeclarationAtHandleZeroIsAViolation() async throws {
        let (detail, handle) = try await violation("zero_handle_characteristic", during: .discoverAll)
        #expect(handle == 0x0000, "\(detail)")
    }

    @Test func aValueHandleThatDoesNotFollowItsDeclarationIsAViolation() async throws {
        let (detail, handle) = try await violation("value_handle_mismatch", during: .discoverAll)
        #expect(detail.contains("not the next handle"), "\(detail)")
        #expect(handle != nil)
    }

    @Test func aDescriptorAfterTheRequestedRangeIsAViolation() async throws {
        let (detail, handle) = try await violation("descriptor_outside_range", during: .discoverDescriptors)
        #expect(detail.contains("Find Information Response"), "\(detail)")
        #expect(handle != nil)
    }
}
