import Harald
import HaraldCodec
import HaraldSimulator
import HeartRateAppModel
import Testing

/// The heart-rate app's behaviour, on the simulator's strap in virtual time.
@Suite("Heart-rate app")
struct HeartRateCoreTests {
    // MARK: Finding and connecting

    @Test func aScanListsTheStrap() async throws {
        let state = try await inWorld { world in
            world.core.scan()
            return try await world.state { !$0.straps.isEmpty }
        }
        #expect(state.status == .scanning)
        #expect(state.straps.map(\.name) == ["Harald HR"])
    }

    @Test func choosingAFoundStrapConnectsAndShowsItsHeartRate() async throws {
        let (strap, state) = try await inWorld { world in
            world.core.scan()
            let found = try await world.state { !$0.straps.isEmpty }.straps[0]
            world.core.connect(to: found.id)
            return (world.strap.identifier, try await world.heartRateShown())
        }
        #expect(state.status == .connected(strap))
        #expect(state.straps.isEmpty)
        #expect(state.strapName == "Harald HR")
        let beatsPerMinute = try #require(state.beatsPerMinute)
        #expect((60...100).contains(beatsPerMinute))
    }

    @Test func theReadingShowsRRIntervalsSkinContactAndBattery() async throws {
        let state = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            return try await world.state { $0.batteryLevel != nil && $0.beatsPerMinute != nil }
        }
        // The strap sends one RR interval per beat: 60 / bpm seconds, in 1/1024 s.
        let beatsPerMinute = try #require(state.beatsPerMinute)
        let expected = Double(60 * 1024 / beatsPerMinute) / 1024 * 1000
        #expect(state.rrIntervalsMilliseconds == [Int(expected.rounded())])
        #expect(state.hasSkinContact == true)
        #expect(state.batteryLevel == 87)
    }

    @Test func theConnectedStrapIsRemembered() async throws {
        let (remembered, strap) = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            return (world.memory.recall(), world.strap.identifier)
        }
        #expect(remembered == strap)
    }

    // MARK: Launching

    @Test func atLaunchAPendingConnectWaitsForTheRememberedStrapThroughALongAbsence() async throws {
        let (waiting, waited, shown) = try await inWorld(WorldSetUp(remembersStrap: true, strapInRange: false)) { world in
            let start = world.clock.now
            let waiting = try await world.state { $0.status != .idle }.status
            try await world.sleep(for: .seconds(2 * 3600))
            await world.bringStrapBack()
            let shown = try await world.heartRateShown()
            return (waiting, start.duration(to: world.clock.now), shown.status)
        }
        #expect(waiting == .connecting(VirtualPeripheral.heartRateStrap().identifier))
        #expect(waited >= .seconds(2 * 3600))
        #expect(waited < .seconds(2 * 3600 + 5))
        #expect(shown == .connected(VirtualPeripheral.heartRateStrap().identifier))
    }

    @Test func aConnectionTheSystemRestoredIsTakenOverWithoutANewLink() async throws {
        let (status, links) = try await inWorld(WorldSetUp(restoresConnection: true)) { world in
            let shown = try await world.heartRateShown()
            return (shown.status, world.simulator.connections.count)
        }
        #expect(status == .connected(VirtualPeripheral.heartRateStrap().identifier))
        #expect(links == 1)
    }

    @Test func aConnectTheSystemWasStillMakingAtRelaunchBecomesTheSession() async throws {
        let setUp = WorldSetUp(strapInRange: false, restoresPendingConnect: true)
        let (waiting, shown) = try await inWorld(setUp, timeLimit: .seconds(3600)) { world in
            let waiting = try await world.state { $0.status != .idle }.status
            await world.bringStrapBack()
            return (waiting, try await world.heartRateShown().status)
        }
        #expect(waiting == .connecting(VirtualPeripheral.heartRateStrap().identifier))
        #expect(shown == .connected(VirtualPeripheral.heartRateStrap().identifier))
    }

    @Test func measurementsTheSystemKeptNotifyingAreTakenOverWithoutWritingTheirCCCDAgain() async throws {
        let measurement = BluetoothUUID(0x2A37)
        let writes = try await inWorld(WorldSetUp(restoresConnection: true, restoresNotifying: true)) { world in
            try await world.heartRateShown()
            // The restored handle is let go once the session shares the link: the session's
            // subscription holds the measurements on.
            try await world.sleep(for: .seconds(10))
            return world.restoredConnection?.writes.value.filter { $0.characteristic == measurement }.map(\.enabled) ?? [true]
        }
        #expect(writes == [], "no CCCD write for the measurement: it was on, and stays on")
    }

    // MARK: Disconnecting and reconnecting

    @Test func theUsersDisconnectStopsTheSystemsOwnReconnection() async throws {
        let (status, links) = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            await world.takeStrapAway()
            try await world.state { if case .reconnecting = $0.status { true } else { false } }
            world.core.disconnect()
            let status = try await world.state { if case .disconnected = $0.status { true } else { false } }.status
            await world.bringStrapBack()
            try await world.sleep(for: .seconds(120))
            return (status, world.openLinks)
        }
        #expect(status == .disconnected(VirtualPeripheral.heartRateStrap().identifier, .localRequest))
        #expect(links == 0, "the system's reconnection (the session connects with enableAutoReconnect) was stopped too")
    }

    @Test func aLostLinkIsReconnectedWhenTheStrapIsBack() async throws {
        let (lost, back, links) = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            await world.takeStrapAway()
            let lost = try await world.state { $0.status.isConnecting }
            try await world.sleep(for: .seconds(60))
            await world.bringStrapBack()
            let back = try await world.heartRateShown()
            return (lost.status, back.status, world.simulator.connections.count)
        }
        let strap = VirtualPeripheral.heartRateStrap().identifier
        #expect(lost == .reconnecting(strap, lost: .connectionLost))
        #expect(back == .connected(strap))
        #expect(links == 2)
    }

    @Test func theUsersDisconnectDoesNotReconnect() async throws {
        let (status, open, links) = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            world.core.disconnect()
            try await world.state { if case .disconnected = $0.status { true } else { false } }
            try await world.sleep(for: .seconds(600))
            return (await world.core.state.status, world.openLinks, world.simulator.connections.count)
        }
        #expect(status == .disconnected(VirtualPeripheral.heartRateStrap().identifier, .localRequest))
        #expect(open == 0)
        #expect(links == 1)
    }

    @Test func cancellingAPendingConnectLeavesNothingConnected() async throws {
        let (status, links) = try await inWorld(WorldSetUp(strapInRange: false)) { world in
            world.core.connect(to: world.strap.identifier)
            try await world.state { $0.status.isConnecting }
            try await world.sleep(for: .seconds(600))
            world.core.cancel()
            try await world.state { $0.status == .idle }
            // Back in range after the cancel: nothing connects behind the app's back.
            await world.bringStrapBack()
            try await world.sleep(for: .seconds(60))
            return (await world.core.state.status, world.simulator.connections.count)
        }
        #expect(status == .idle)
        #expect(links == 0)
    }

    @Test func theUsersDisconnectForgetsTheStrapForTheNextLaunch() async throws {
        let remembered = try await inWorld { world in
            try await world.connectAndWaitForAReading()
            world.core.disconnect()
            try await world.state { if case .disconnected = $0.status { true } else { false } }
            return world.memory.recall()
        }
        #expect(remembered == nil)
    }

    @Test func cancellingAPendingConnectForgetsTheStrapForTheNextLaunch() async throws {
        let remembered = try await inWorld(WorldSetUp(remembersStrap: true, strapInRange: false)) { world in
            try await world.state { $0.status.isConnecting }
            world.core.cancel()
            try await world.state { $0.status == .idle }
            return world.memory.recall()
        }
        #expect(remembered == nil)
    }

    @Test func anUnauthorizedRadioFailsTheConnectInsteadOfRetrying() async throws {
        let status = try await inWorld { world in
            await world.simulator.setRadioState(.unauthorized)
            try await world.state { $0.radio == .unauthorized }
            world.core.connect(to: world.strap.identifier)
            return try await world.state { if case .failed = $0.status { true } else { false } }.status
        }
        #expect(status == .failed(BluetoothError.radioUnavailable(.unauthorized).description))
    }

    // MARK: Ending

    @Test func aLinkLostForGoodKeepsTheStrapForTheNextLaunch() async throws {
        let (status, remembered) = try await inWorld(policy: ReconnectPolicy(maximumAttempts: 0)) { world in
            try await world.connectAndWaitForAReading()
            await world.takeStrapAway()
            let ended = try await world.state { if case .disconnected = $0.status { true } else { false } }
            return (ended.status, world.memory.recall())
        }
        let strap = VirtualPeripheral.heartRateStrap().identifier
        #expect(status == .disconnected(strap, .connectionLost))
        #expect(remembered == strap)
    }

    @Test func cancellingTheRunDisconnectsAndEndsTheStateStream() async throws {
        let open = try await simulate { world in
            let states = await world.core.states()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await world.core.run() }
                try await world.connectAndWaitForAReading()
                group.cancelAll()
            }
            // Returns only because the run finished the stream (else the simulation stalls).
            for await _ in states {}
            return world.openLinks
        }
        #expect(open == 0)
    }

    @Test func aNewRunAfterACancelledOneReconnectsToTheStrap() async throws {
        let (first, second, links) = try await simulate { world in
            var shown: [HeartRateAppState.Status] = []
            for _ in 1...2 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await world.core.run() }
                    if world.memory.recall() == nil { world.core.connect(to: world.strap.identifier) }
                    shown.append(try await world.heartRateShown().status)
                    group.cancelAll()
                }
            }
            return (shown[0], shown[1], world.simulator.connections.count)
        }
        let strap = VirtualPeripheral.heartRateStrap().identifier
        #expect(first == .connected(strap))
        #expect(second == .connected(strap))
        #expect(links == 2)
    }
}
