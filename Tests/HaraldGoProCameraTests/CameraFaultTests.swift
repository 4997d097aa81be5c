import Harald
import HaraldGoPro
import HaraldGoProSimulation
import HaraldSimulator
import Testing

@Suite("GoProCamera errors: timeouts, malformed responses, disconnection")
struct CameraFaultTests {
    @Test func anUnansweredCommandTimesOutAndTheChannelStaysUsable() async throws {
        let camera = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.command(0x3C), .neverAnswer)])
        let (outcome, version) = try await withSimulatedCamera(camera, requestTimeout: .seconds(2)) { camera, _ in
            var outcome: GoProError?
            do { _ = try await camera.hardwareInfo() } catch let error as GoProError { outcome = error }
            return (outcome, try await camera.openGoProVersion())
        }
        #expect(outcome == .timeout(request: "Get Hardware Info", after: .seconds(2)))
        #expect(version.major == 2)
    }

    @Test func aCameraMadeFromASimulatorConnectionWaitsInVirtualTime() async throws {
        let device = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.command(0x3C), .neverAnswer)])
        let simulation = Simulation()
        let simulator = try Simulator(clock: simulation.clock, devices: [device])
        let central = Central(backend: simulator.backend, clock: simulation.clock)
        let clock = simulation.clock
        let (error, waited) = try await simulation.run {
            let connection = try await central.connect(to: device.identifier, timeout: .seconds(5))
            let camera = GoProCamera(connection: connection, requestTimeout: .seconds(30))
            let start = clock.now
            var error: GoProError?
            do { _ = try await camera.hardwareInfo() } catch let failure as GoProError { error = failure }
            return (error, start.duration(to: clock.now))
        }
        #expect(error == .timeout(request: "Get Hardware Info", after: .seconds(30)))
        #expect(waited >= .seconds(30))
    }

    @Test func anAnswerMissingItsLastPacketTimesOutAndTheNextAnswerIsReadWhole() async throws {
        let camera = VirtualPeripheral.actionCamera(bootTime: .zero, faults: [ActionCameraFault(.query(0x13), .loseLastPacket)])
        let (outcome, settings) = try await withSimulatedCamera(camera, requestTimeout: .seconds(2)) { camera, _ in
            var outcome: GoProError?
            do { _ = try await camera.statuses() } catch let error as GoProError { outcome = error }
            // Same characteristic (GP-0077), a new answer: it must not be glued to the partial one.
            return (outcome, try await camera.settings())
        }
        #expect(outcome == .timeout(request: "Get Status Values", after: .seconds(2)))
        #expect(settings.integer(.videoResolution) == 9)
    }

    @Test func anAnswerWhoseStartPacketIsLostIsAMalformedResponse() async throws {
        let camera = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.query(0x13), .loseStartPacket)])
        let (outcome, statistics) = try await withSimulatedCamera(camera) { camera, _ in
            var outcome: GoProError?
            do { _ = try await camera.statuses() } catch let error as GoProError { outcome = error }
            return (outcome, await camera.statistics)
        }
        guard case .malformedResponse? = outcome else {
            Issue.record("expected a malformed response, got \(String(describing: outcome))")
            return
        }
        #expect(statistics.malformedPackets >= 1)
    }

    /// 0x13 (all statuses) answers in 20 packets; the first answer comes late and broken (its
    /// start packet lost, or a header damaged mid-message), so the rest of its packets are still
    /// arriving when the retry is sent.
    @Test(arguments: [ActionCameraFault.Action.loseStartPacket, .corruptHeaderMidMessage])
    func theSameRequestSucceedsRightAfterABrokenAnswer(_ breakage: ActionCameraFault.Action) async throws {
        let camera = VirtualPeripheral.actionCamera(
            bootTime: .zero, faults: [ActionCameraFault(.query(0x13), breakage, times: 1, delay: .milliseconds(200))])
        let (outcome, retried) = try await withSimulatedCamera(camera) { camera, _ in
            var outcome: GoProError?
            do { _ = try await camera.statuses() } catch let error as GoProError { outcome = error }
            return (outcome, try await camera.statuses())
        }
        guard case .malformedResponse? = outcome else {
            Issue.record("expected a malformed response, got \(String(describing: outcome))")
            return
        }
        #expect(retried.count == 88)
    }

    @Test func anotherRequestOnTheChannelSucceedsRightAfterAnAnswerThatLostItsStartPacket() async throws {
        let camera = VirtualPeripheral.actionCamera(
            bootTime: .zero, faults: [ActionCameraFault(.query(0x13), .loseStartPacket, delay: .milliseconds(200))])
        let settings = try await withSimulatedCamera(camera) { camera, _ in
            _ = try? await camera.statuses()
            return try await camera.settings([.videoResolution])
        }
        #expect(settings.integer(.videoResolution) == 9)
    }

    @Test func theContinuationPacketsOfAnAnswerThatLostItsStartAreCountedAsDiscarded() async throws {
        let camera = VirtualPeripheral.actionCamera(
            bootTime: .zero, faults: [ActionCameraFault(.query(0x13), .loseStartPacket, times: 1, delay: .milliseconds(200))])
        let statistics = try await withSimulatedCamera(camera) { camera, _ in
            _ = try? await camera.statuses()
            _ = try await camera.statuses()
            return await camera.statistics
        }
        // 19 continuation packets arrive: the first breaks the answer, the other 18 are dropped quietly.
        #expect(statistics.malformedPackets == 1)
        #expect(statistics.discardedPackets == 18)
        #expect(statistics.messages == 1)
    }

    @Test func aCommandSucceedsRightAfterAMultiPacketAnswerThatLostItsStartPacket() async throws {
        // Get Hardware Info answers in 6 packets on GP-0073; the version query follows on the same channel.
        let camera = VirtualPeripheral.actionCamera(
            bootTime: .zero, faults: [ActionCameraFault(.command(0x3C), .loseStartPacket, delay: .milliseconds(200))])
        let version = try await withSimulatedCamera(camera) { camera, _ in
            _ = try? await camera.hardwareInfo()
            return try await camera.openGoProVersion()
        }
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
    }

    @Test func theRestOfAnAnswerAbandonedByATimeoutDoesNotFailTheNextRequest() async throws {
        // The broken answer to 0x13 comes after its request gave up, while the next query waits.
        let camera = VirtualPeripheral.actionCamera(
            bootTime: .zero, faults: [ActionCameraFault(.query(0x13), .loseStartPacket, delay: .milliseconds(2500))])
        let (outcome, settings) = try await withSimulatedCamera(camera, requestTimeout: .seconds(2)) { camera, _ in
            var outcome: GoProError?
            do { _ = try await camera.statuses() } catch let error as GoProError { outcome = error }
            return (outcome, try await camera.settings([.videoResolution]))
        }
        #expect(outcome == .timeout(request: "Get Status Values", after: .seconds(2)))
        #expect(settings.integer(.videoResolution) == 9)
    }

    @Test func anAnswerArrivingWhenNoRequestWaitsDoesNotDisturbTheNextRequest() async throws {
        let camera = VirtualPeripheral.actionCamera(bootTime: .zero, faults: [ActionCameraFault(.command(0x3C), .answerTwice)])
        let (version, statistics) = try await withSimulatedCamera(camera) { camera, _ in
            _ = try await camera.hardwareInfo()
            // Let the copy arrive while nothing waits on GP-0073.
            try await camera.clock.sleep(for: .seconds(1))
            let unexpected = await camera.statistics.unexpectedMessages
            return (try await camera.openGoProVersion(), (unexpected, await camera.statistics))
        }
        #expect(statistics.0 == 1)
        #expect(version == GoProOpenGoProVersion(major: 2, minor: 0))
        #expect(statistics.1.malformedPackets == 0)
    }

    @Test func aTLVTableThatRunsPastItsEndIsAMalformedResponse() async throws {
        let camera = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.query(0x13), .malformedPayload)])
        let outcome = try await withSimulatedCamera(camera) { camera, _ in
            do {
                _ = try await camera.statuses([.encoding])
                return GoProError?.none
            } catch let error as GoProError {
                return error
            }
        }
        guard case .malformedResponse? = outcome else {
            Issue.record("expected a malformed response, got \(String(describing: outcome))")
            return
        }
    }

    @Test func aHardwareInfoPayloadThatDoesNotDecodeIsAMalformedResponse() async throws {
        let camera = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.command(0x51), .malformedPayload)])
        let outcome = try await withSimulatedCamera(camera) { camera, _ in
            do {
                _ = try await camera.openGoProVersion()
                return GoProError?.none
            } catch let error as GoProError {
                return error
            }
        }
        guard case .malformedResponse? = outcome else {
            Issue.record("expected a malformed response, got \(String(describing: outcome))")
            return
        }
    }

    @Test func aRequestPendingWhenTheLinkDropsFailsWithDisconnected() async throws {
        let camera = VirtualPeripheral.actionCamera(faults: [ActionCameraFault(.command(0x3C), .neverAnswer)])
        let outcome = try await withSimulatedCamera(camera, requestTimeout: .seconds(60)) { camera, simulator in
            try await camera.start()
            return try await withThrowingTaskGroup(of: GoProError?.self) { group in
                group.addTask {
                    do {
                        _ = try await camera.hardwareInfo()
                        return nil
                    } catch let error as GoProError {
                        return error
                    }
                }
                group.addTask {
                    try await camera.clock.sleep(for: .seconds(1))
                    // The camera goes out of range: its link is lost.
                    await simulator.setRSSI(nil, of: VirtualPeripheral.actionCamera().address)
                    return nil
                }
                var outcome: GoProError?
                for try await result in group { if let result { outcome = result } }
                return outcome
            }
        }
        guard case .disconnected? = outcome else {
            Issue.record("expected disconnected, got \(String(describing: outcome))")
            return
        }
    }

    @Test func requestsAfterTheLinkIsGoneFailAtOnce() async throws {
        let outcome = try await withSimulatedCamera { camera, _ in
            try await camera.start()
            await camera.connection.disconnect()
            do {
                _ = try await camera.statuses()
                return GoProError?.none
            } catch let error as GoProError {
                return error
            }
        }
        guard case .disconnected? = outcome else {
            Issue.record("expected disconnected, got \(String(describing: outcome))")
            return
        }
    }
}
