import Foundation
import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator
import Testing

@Suite("GoProCamera flows against the simulated camera")
struct CameraFlowTests {
    @Test func readinessPollsHardwareInfoUntilTheCameraHasBooted() async throws {
        let (info, messages) = try await withSimulatedCamera(.actionCamera(bootTime: .seconds(2))) { camera, _ in
            let info = try await camera.waitUntilReady(timeout: .seconds(10), pollInterval: .milliseconds(500))
            return (info, await camera.statistics.messages)
        }
        #expect(info.modelName == "HERO12 Black")
        #expect(messages > 1)
    }

    @Test func readinessTimesOutWhenTheCameraNeverBoots() async throws {
        let outcome = try await withSimulatedCamera(.actionCamera(bootTime: .seconds(3600))) { camera, _ in
            do {
                _ = try await camera.waitUntilReady(timeout: .seconds(3))
                return GoProError?.none
            } catch let error as GoProError {
                return error
            }
        }
        guard case .timeout? = outcome else {
            Issue.record("expected a timeout, got \(String(describing: outcome))")
            return
        }
    }

    @Test func connectWhenReadyScansConnectsAndWaitsOnTheFlowMachinery() async throws {
        let simulation = Simulation()
        let device = VirtualPeripheral.actionCamera(bootTime: .seconds(1))
        let simulator = try Simulator(clock: simulation.clock, devices: [.heartRateStrap(), device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let steps = StepLog()
        let (peripheral, model) = try await simulation.run {
            let (camera, info) = try await GoProCamera.connectWhenReady(on: central, progress: { steps.add($0) })
            let peripheral = camera.connection.peripheral
            await camera.connection.disconnect()
            return (peripheral, info.modelName)
        }
        #expect(peripheral == device.identifier)
        #expect(model == "HERO12 Black")
        #expect(steps.names == ["scanning", "connecting", "waitingForReadiness", "ready"])
    }

    @Test func startAndStopRecordingVerifyTheEncodingStatus() async throws {
        let encoding = try await withSimulatedCamera { camera, _ in
            try await camera.startRecording()
            let during = try await camera.statuses([.encoding]).bool(.encoding)
            try await camera.stopRecording()
            let after = try await camera.statuses([.encoding]).bool(.encoding)
            return [during, after]
        }
        #expect(encoding == [true, false])
    }

    @Test func aConfigurationAppliesAndVerifiesEachSetting() async throws {
        let (applied, values) = try await withSimulatedCamera { camera, _ in
            let applied = try await camera.configure([(.videoResolution, 24), (.framesPerSecond, 5)])
            return (applied, try await camera.settings([.videoResolution, .framesPerSecond]))
        }
        #expect(applied.count == 2)
        #expect(values.integer(.videoResolution) == 24)
        #expect(values.integer(.framesPerSecond) == 5)
    }

    @Test func aRefusedSettingRollsBackTheSettingsAppliedBeforeIt() async throws {
        let (failure, values) = try await withSimulatedCamera { camera, _ in
            var failure: ConfigurationFlow.Failure?
            do {
                try await camera.configure([(.videoResolution, 24), (.framesPerSecond, 0xEE)])
            } catch let error as ConfigurationFlow.Failure {
                failure = error
            }
            return (failure, try await camera.settings([.videoResolution, .framesPerSecond]))
        }
        #expect(failure?.rolledBack.count == 1)
        #expect(failure?.underlying as? GoProError == .rejected(request: "set framesPerSecond", status: .invalidParameter))
        #expect(values.integer(.videoResolution) == 9)
        #expect(values.integer(.framesPerSecond) == 0)
    }

    @Test func theKeepAliveLoopSendsUntilCancelled() async throws {
        try await withSimulatedCamera { camera, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await camera.keepAlive(every: .seconds(3)) }
                try await camera.clock.sleep(for: .seconds(10))
                group.cancelAll()
                try await group.waitForAll()
            }
            // Four keep-alives (t = 0, 3, 6, 9 s), each answered on GP-0075.
            #expect(await camera.statistics.messages == 4)
        }
    }

    @Test func cancellingTheKeepAliveLoopDuringAKeepAliveEndsItWithoutAnError() async throws {
        // The camera never answers the keep-alive, so the first one is still waiting when the loop is cancelled.
        let camera = VirtualPeripheral.actionCamera(bootTime: .zero, faults: [ActionCameraFault(.setting(0x5B), .neverAnswer)])
        let (outcome, written) = try await withSimulatedCamera(camera, requestTimeout: .seconds(60)) { camera, simulator in
            try await withThrowingTaskGroup(of: GoProError?.self) { group in
                group.addTask {
                    do throws(GoProError) {
                        try await camera.keepAlive(every: .seconds(3))
                        return nil
                    } catch {
                        return error
                    }
                }
                try await camera.clock.sleep(for: .seconds(2))
                let written = await lastPacketWritten(to: .settings, in: simulator)
                group.cancelAll()
                let outcome = try await group.next() ?? nil
                return (outcome, written)
            }
        }
        #expect(written == [0x20, 0x03, 0x5B, 0x01, 0x42])
        #expect(outcome == nil)
    }
}

/// Readiness steps seen by a flow's progress closure.
final class StepLog: @unchecked Sendable {
    // @unchecked Sendable: `steps` is only touched with `lock` held.
    private let lock = NSLock()
    private var steps: [String] = []

    func add(_ step: GoProReadinessStep) {
        let name =
            switch step {
            case .scanning: "scanning"
            case .connecting: "connecting"
            case .waitingForReadiness: "waitingForReadiness"
            case .ready: "ready"
            }
        lock.withLock { steps.append(name) }
    }

    var names: [String] { lock.withLock { steps } }
}
