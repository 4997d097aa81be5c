import Foundation
import Harald
import HaraldCore
import HaraldGoProSimulation
import HaraldSMP
import HaraldSimulator
import Testing

/// Collects a flow's progress reports.
private final class ProgressLog: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched with `lock` held.
    private let lock = NSLock()
    private var items: [PairingFlow.Progress] = []
    var all: [PairingFlow.Progress] { lock.withLock { items } }
    func add(_ item: PairingFlow.Progress) { lock.withLock { items.append(item) } }
}

@Suite("Pairing flow on the simulator")
struct PairingFlowTests {
    private static let ssid = Characteristic<[UInt8], Read>(VirtualPeripheral.OpenGoPro.wifiSSID, service: VirtualPeripheral.OpenGoPro.wifiService)

    private func runFlow(camera: VirtualPeripheral, timeout: Duration = .seconds(15), security: SecurityConfiguration? = nil) async throws
        -> (result: Result<[UInt8], PairingFlow.Failure>, progress: [PairingFlow.Progress], linksOpen: Int, bonds: [Bond])
    {
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), camera], security: security)
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let log = ProgressLog()
        let (result, open, bonds) = try await simulation.run(timeLimit: .seconds(600)) { () -> (Result<[UInt8], PairingFlow.Failure>, Int, [Bond]) in
            let flow = PairingFlow(central: central, match: .namePrefix("GoPro"), protected: Self.ssid, timeout: timeout, retryDelay: .seconds(1))
            let result: Result<[UInt8], PairingFlow.Failure>
            do throws(PairingFlow.Failure) {
                let paired = try await flow.run { log.add($0) }
                let ssid = try? await paired.connection.read(Self.ssid)
                await paired.connection.disconnect()
                result = .success(ssid ?? [])
            } catch {
                result = .failure(error)
            }
            var open = 0
            for connection in simulator.connections where await connection.link.closedReason == nil { open += 1 }
            return (result, open, try await security?.bonds.allBonds() ?? [])
        }
        return (result, log.all, open, bonds)
    }

    @Test func aCameraThatAcceptsPairingIsPairedAfterOneRefusal() async throws {
        let (result, progress, _, _) = try await runFlow(camera: .actionCamera())
        #expect(try result.get() == Array("GP24500042".utf8))
        #expect(progress.contains(.pairingRequired(attempt: 1)))
        #expect(progress.last == .paired)
    }

    @Test func withItsOwnSecurityManagerTheCentralPairsBeforeTheProtectedReadAndKeepsTheBond() async throws {
        let (result, progress, _, bonds) = try await runFlow(
            camera: .actionCamera(pairing: .securityManager(DeviceSecurity())), security: SecurityConfiguration(bonds: InMemoryBondStore()))
        #expect(try result.get() == Array("GP24500042".utf8))
        #expect(progress.contains(.securing))
        #expect(!progress.contains(.pairingRequired(attempt: 1)))
        #expect(progress.last == .paired)
        #expect(bonds.count == 1)
    }

    @Test func aWrongPasskeyFailsTheFlowWithThePairingFailureAndLeavesNothingConnected() async throws {
        let (result, _, linksOpen, _) = try await runFlow(
            camera: .actionCamera(pairing: .securityManager(.displaying(123_456))),
            security: SecurityConfiguration(
                bonds: InMemoryBondStore(), pairing: PairingConfiguration(ioCapability: .keyboardOnly), agent: AutomaticPairingAgent(passkey: 111_111)))
        guard case .failure(.bluetooth(.pairingFailed(let reason))) = result else {
            Issue.record("expected a pairing failure, got \(result)")
            return
        }
        #expect(reason.lowercased().contains("confirm value failed"))
        #expect(linksOpen == 0)
    }

    @Test func aCameraThatRejectsPairingFailsTheFlowAndLeavesNothingConnected() async throws {
        let (result, _, linksOpen, _) = try await runFlow(camera: .actionCamera(pairing: .reject))
        // The camera has no key for this central: Insufficient Authentication (Part C §10.3).
        #expect(throws: PairingFlow.Failure.pairingRejected(.insufficientAuthentication)) { try result.get() }
        #expect(linksOpen == 0)
    }

    @Test func aCameraOutOfRangeTimesTheFlowOutWhileScanning() async throws {
        let (result, _, linksOpen, _) = try await runFlow(camera: .actionCamera(rssi: nil), timeout: .seconds(5))
        #expect(throws: PairingFlow.Failure.timedOut(stage: "scanning")) { try result.get() }
        #expect(linksOpen == 0)
    }
}
