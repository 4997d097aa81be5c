import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldProfiles
import HaraldSimulator
import Testing

/// Connecting and owning links, in virtual time: pending connects, power-on, shared links and
/// their release.
@Suite("Connection lifecycle on the simulator")
struct ConnectionLifecycleTests {
    /// A world with one heart-rate strap, run in virtual time.
    private func inWorld<T: Sendable>(
        _ body: @escaping @Sendable (Central, Simulator, VirtualPeripheral, VirtualClock) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let strap = VirtualPeripheral.heartRateStrap()
        let simulator = try Simulator(clock: simulation.clock, devices: [strap])
        let central = Central(backend: simulator.backend, clock: simulation.clock, defaultTimeout: .seconds(5))
        return try await simulation.run(timeLimit: .seconds(7200)) { try await body(central, simulator, strap, simulation.clock) }
    }

    @Test func aConnectWithoutTimeoutWaitsUntilTheDeviceComesBackInRange() async throws {
        let waited = try await inWorld { central, simulator, strap, clock in
            await simulator.setRSSI(nil, of: strap.address)
            let start = clock.now
            async let connection = central.connect(to: strap.identifier)
            try await clock.sleep(for: .seconds(600))
            await simulator.setRSSI(RSSI(dBm: -60), of: strap.address)
            let connected = try await connection
            let waited = start.duration(to: clock.now)
            _ = try await connected.read(.batteryLevel)
            await connected.disconnect()
            return waited
        }
        #expect(waited >= .seconds(600))
        #expect(waited < .seconds(602))
    }

    @Test func aPendingConnectEndsWithItsTaskAndLeavesNoLink() async throws {
        let (error, links) = try await inWorld { central, simulator, strap, clock in
            await simulator.setRSSI(nil, of: strap.address)
            // A child task (an unstructured one would leave the simulation's executor).
            let error = await withTaskGroup(of: BluetoothError?.self) { group in
                group.addTask {
                    do {
                        _ = try await central.connect(to: strap.identifier)
                        return nil
                    } catch { return BluetoothError(error) }
                }
                try? await clock.sleep(for: .seconds(3600))
                group.cancelAll()
                return await group.next() ?? nil
            }
            // Back in range after the cancel: nothing connects behind the app's back.
            await simulator.setRSSI(RSSI(dBm: -60), of: strap.address)
            try await clock.sleep(for: .seconds(10))
            return (error, simulator.connections.count)
        }
        #expect(error == .cancelled)
        #expect(links == 0)
    }

    @Test func aConnectBeforePowerOnWaitsForThePower() async throws {
        let waited = try await inWorld { central, simulator, strap, clock in
            await simulator.setRadioState(.poweredOff)
            simulator.setRadioState(.poweredOn, after: .seconds(3))
            let start = clock.now
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(10))
            await connection.disconnect()
            return start.duration(to: clock.now)
        }
        #expect(waited >= .seconds(3))
    }

    @Test func aConnectsTimeoutCoversTheWaitForPowerOn() async throws {
        let error = try await inWorld { central, simulator, strap, _ in
            await simulator.setRadioState(.poweredOff)
            simulator.setRadioState(.poweredOn, after: .seconds(60))
            return await #expect(throws: BluetoothError.self) { _ = try await central.connect(to: strap.identifier, timeout: .seconds(10)) }
        }
        #expect(error == .timeout(operation: "waiting for the radio", after: .seconds(10)))
    }

    @Test func anUnauthorizedRadioFailsAConnectAtOnce() async throws {
        let error = try await inWorld { central, simulator, strap, _ in
            await simulator.setRadioState(.unauthorized)
            return await #expect(throws: BluetoothError.self) { _ = try await central.connect(to: strap.identifier) }
        }
        #expect(error == .radioUnavailable(.unauthorized))
    }

    @Test func twoConcurrentConnectsShareOneAttemptAndOneLink() async throws {
        let (owners, links) = try await inWorld { central, simulator, strap, _ in
            async let first = central.connect(to: strap.identifier, timeout: .seconds(5))
            async let second = central.connect(to: strap.identifier, timeout: .seconds(5))
            let (a, b) = try await (first, second)
            let owners = (a.ownerCount, b.ownerCount)
            let links = simulator.connections.count
            await a.disconnect()
            await b.disconnect()
            return (owners, links)
        }
        #expect(owners == (2, 2))
        #expect(links == 1)
    }

    @Test func releasingTheLastHandleDisconnectsTheLink() async throws {
        let reason = try await inWorld { central, simulator, strap, _ in
            do {
                let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
                _ = try await connection.read(.batteryLevel)
            }
            guard let link = simulator.connection(to: strap.address) else { throw BluetoothError.notFound("the strap's link") }
            return await link.connection.disconnection()
        }
        #expect(reason == .localRequest)
    }

    @Test func aSubscriptionKeepsItsConnectionAlive() async throws {
        let count = try await inWorld { central, _, strap, _ in
            let subscription = try await { () async throws -> Subscription<HeartRateMeasurement> in
                let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
                return try await connection.subscribe(.heartRateMeasurement)
            }()
            // The handle is gone from this scope; the subscription holds it, and the strap streams on.
            var received = 0
            for try await _ in subscription {
                received += 1
                if received == 3 { break }
            }
            return received
        }
        #expect(count == 3)
    }

    @Test func aConnectAfterTheLinkDroppedMakesANewLink() async throws {
        let (firstEnd, owners) = try await inWorld { central, simulator, strap, _ in
            let first = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            guard let link = simulator.connection(to: strap.address) else { throw BluetoothError.notFound("the strap's link") }
            await link.link.close(reason: .terminated(by: .peripheral))
            let firstEnd = await first.disconnection()
            let second = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            _ = try await second.read(.batteryLevel)
            let owners = second.ownerCount
            await second.disconnect()
            return (firstEnd, owners)
        }
        #expect(firstEnd == .remoteRequest)
        #expect(owners == 1)
    }

    @Test func theStateStreamReportsConnectedThenHowTheLinkEnded() async throws {
        let states = try await inWorld { central, simulator, strap, _ in
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            async let collected = connection.states().reduce(into: [ConnectionState]()) { $0.append($1) }
            guard let link = simulator.connection(to: strap.address) else { throw BluetoothError.notFound("the strap's link") }
            _ = try await connection.read(.batteryLevel)
            await link.link.close(reason: .terminated(by: .peripheral))
            return await collected
        }
        #expect(states == [.connected, .disconnected(.remoteRequest)])
    }

    @Test func aHandlesOwnDisconnectEndsItsStateStreamWhileTheLinkStays() async throws {
        let (states, otherReads) = try await inWorld { central, _, strap, _ in
            let app = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            let kit = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            async let collected = app.states().reduce(into: [ConnectionState]()) { $0.append($1) }
            _ = try await app.read(.batteryLevel)
            await app.disconnect()
            let states = await collected
            let otherReads = (try? await kit.read(.batteryLevel)) != nil
            await kit.disconnect()
            return (states, otherReads)
        }
        #expect(states == [.connected, .disconnected(.localRequest)])
        #expect(otherReads)
    }

    @Test func aReadThatMustDiscoverFirstFailsOneTimeoutAfterItsStartNotAfterEachStep() async throws {
        let (error, elapsed, discoveryAlone) = try await inWorld { central, simulator, strap, clock in
            // How long discovery takes on this link, measured on a first connection.
            let probe = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            let probeStart = clock.now
            _ = try await probe.characteristic(BatteryLevel.uuid, service: BluetoothUUID(0x180F))
            let discoveryAlone = probeStart.duration(to: clock.now)
            await probe.disconnect()

            // The strap never answers the read itself: discovery goes through, the read hangs.
            simulator.injectOnNextConnection(to: strap.address, peer: [PeerFault(answering: .readRequest, .neverAnswer)])
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            let start = clock.now
            let timeout = discoveryAlone + .milliseconds(50)
            let error = await #expect(throws: BluetoothError.self) { _ = try await connection.read(.batteryLevel, timeout: timeout) }
            let elapsed = start.duration(to: clock.now)
            return (error, elapsed - timeout, discoveryAlone)
        }
        #expect(discoveryAlone > Duration.milliseconds(50), "discovery takes several round trips")
        guard case .timeout = error else { Issue.record("expected a timeout, got \(String(describing: error))"); return }
        #expect(elapsed == .zero, "the read fails exactly one timeout after the call started")
    }

    @Test func rssiUpdatesFollowTheLevelTheDeviceIsHeardAt() async throws {
        let levels = try await inWorld { central, simulator, strap, clock in
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            await simulator.setRSSI(RSSI(dBm: -40), of: strap.address)
            var levels: [RSSI] = []
            for try await rssi in connection.rssiUpdates(every: .seconds(1)) {
                levels.append(rssi)
                if levels.count == 1 { await simulator.setRSSI(RSSI(dBm: -70), of: strap.address) }
                if levels.count == 3 { break }
            }
            await connection.disconnect()
            return levels
        }
        #expect(levels == [RSSI(dBm: -40), RSSI(dBm: -70), RSSI(dBm: -70)])
    }

    @Test func aLoopThatStopsReadingRSSIGetsTheNewest8Readings() async throws {
        let levels = try await inWorld { central, simulator, strap, clock in
            let connection = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            await simulator.setRSSI(RSSI(dBm: -40), of: strap.address)
            var updates = connection.rssiUpdates(every: .seconds(1)).makeAsyncIterator()
            // About 20 readings, one level lower each second, while the loop reads none of them.
            for step in 1...20 {
                try await clock.sleep(for: .seconds(1))
                await simulator.setRSSI(RSSI(dBm: Int8(-40 - step)), of: strap.address)
            }
            try await clock.sleep(for: .seconds(2))
            await simulator.setRSSI(RSSI(dBm: -100), of: strap.address)
            var levels: [RSSI] = []
            for _ in 0..<9 { if let level = try await updates.next() { levels.append(level) } }
            await connection.disconnect()
            return levels
        }
        // 8 readings were kept, the newest (the oldest, -40, is gone: ConnectionState keeps 8);
        // the 9th is the first reading taken after the loop came back.
        #expect(levels.count == 9)
        let kept = levels.prefix(8).map(\.dBm)
        #expect(zip(kept, kept.dropFirst()).allSatisfy { $0 >= $1 }, "in the order they were read: \(kept)")
        #expect(kept.allSatisfy { $0 < -40 && $0 > -100 }, "\(kept)")
        #expect(kept.last == -60, "the newest reading before the loop came back is kept")
        #expect(levels.last == RSSI(dBm: -100))
    }

    @Test func linkStatesFollowEveryConnectAndTheLinksEndWhoeverCausesThem() async throws {
        let states = try await inWorld { central, simulator, strap, clock in
            var states = central.linkStates(of: strap.identifier).makeAsyncIterator()
            var seen: [PeripheralLinkState] = [await states.next()!]
            let app = try await central.connect(to: strap.identifier, timeout: .seconds(5))
            seen.append(await states.next()!)
            seen.append(await states.next()!)
            let kit = try await central.connect(to: strap.identifier, timeout: .seconds(5))  // shares: no change
            await app.disconnect()
            guard let link = simulator.connection(to: strap.address) else { throw BluetoothError.notFound("the strap's link") }
            await link.link.close(reason: .terminated(by: .peripheral))
            _ = await kit.disconnection()
            seen.append(await states.next()!)
            return seen
        }
        #expect(states == [.disconnected, .connecting, .connected, .disconnected])
    }
}
