import Harald
import HaraldHeartRateMonitor
import HaraldProfiles
import HaraldSimulator
import Testing

/// The kit against the simulator's strap, in virtual time.
@Suite("Heart-rate monitor kit on the simulated strap")
struct HeartRateMonitorTests {
    @Test func readingsCarryHeartRateContactEnergyAndRRIntervals() async throws {
        let readings = try await SimulatedStrap.withMonitor { monitor, _ in
            let stream = try await monitor.readings()
            let taken = try await stream.prefix(4)
            await monitor.stop(stream)
            return taken
        }
        #expect(readings.count == 4)
        for reading in readings {
            #expect((40...220).contains(reading.beatsPerMinute))
            #expect(reading.sensorContact == .detected)
            // The strap sends one RR interval per beat period: 60 / bpm seconds, in 1/1024 s units.
            let interval = try #require(reading.rrIntervals.first)
            #expect(abs(interval - 60 / Double(reading.beatsPerMinute)) <= 1.0 / 1024)
            #expect(reading.rrIntervalsMilliseconds == [Int((interval * 1000).rounded())])
        }
        let energy = readings.compactMap(\.energyExpended)
        #expect(energy.count == 4)
        #expect(zip(energy, energy.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }

    @Test func stoppingAStreamEndsItsLoopAndTurnsNotificationsOff() async throws {
        let notifiedAfterStop = try await SimulatedStrap.withMonitor { monitor, world in
            let stream = try await monitor.readings()
            _ = try await stream.prefix(1)
            await monitor.stop(stream)
            for try await _ in stream {}
            let simulated = try #require(world.connection(to: SimulatedStrap.address))
            let before = await simulated.statistics.pdusSent[.peripheral] ?? 0
            try await monitor.connection.clock.sleep(for: .seconds(5))
            return (await simulated.statistics.pdusSent[.peripheral] ?? 0) - before
        }
        #expect(notifiedAfterStop == 0)
    }

    @Test func resettingEnergyExpendedRestartsTheTotal() async throws {
        let (before, after) = try await SimulatedStrap.withMonitor { monitor, _ in
            let first = try await monitor.readings()
            let before = try await first.prefix(5).last?.energyExpended
            await monitor.stop(first)
            try await monitor.resetEnergyExpended()
            let second = try await monitor.readings()
            let after = try await second.prefix(1).first?.energyExpended
            await monitor.stop(second)
            return (before, after)
        }
        let total = try #require(before)
        let restarted = try #require(after)
        #expect(restarted < total)
    }

    @Test func aControlPointCommandTheStrapRefusesIsATypedError() async throws {
        let error = try await SimulatedStrap.withMonitor { monitor, _ in
            do throws(HeartRateMonitorError) {
                try await monitor.send(.reserved(0x7F))
                return nil as HeartRateMonitorError?
            } catch { return error }
        }
        #expect(error == .controlPointNotSupported(.reserved(0x7F)))
    }

    @Test func bodySensorLocationIsRead() async throws {
        let location = try await SimulatedStrap.withMonitor { monitor, _ in try await monitor.bodySensorLocation() }
        #expect(location == .chest)
    }

    @Test func batteryLevelIsReadInPercent() async throws {
        let level = try await SimulatedStrap.withMonitor { monitor, _ in try await monitor.batteryLevel() }
        #expect(level == 87)
    }

    @Test func batteryNotificationsAreOfferedAndCanBeStartedAndStopped() async throws {
        let offered = try await SimulatedStrap.withMonitor { monitor, world in
            let offered = try await monitor.offersBatteryNotifications()
            let levels = try await monitor.batteryLevels()
            // The strap notifies a change of charge; the simulator's script stands in for it.
            await world.runtime(of: SimulatedStrap.address)?.notify(BatteryLevel.uuid, [86])
            var iterator = levels.makeAsyncIterator()
            let level = try await iterator.next()
            await monitor.stop(levels)
            return (offered, level)
        }
        #expect(offered.0)
        #expect(offered.1 == 86)
    }

    @Test func aBatteryLevelTheStrapDoesNotKnowArrivesAsNil() async throws {
        let level = try await SimulatedStrap.withMonitor { monitor, world in
            let levels = try await monitor.batteryLevels()
            // Straps without a fuel gauge send 0xFF.
            await world.runtime(of: SimulatedStrap.address)?.notify(BatteryLevel.uuid, [0xFF])
            var iterator = levels.makeAsyncIterator()
            let level = try await iterator.next()
            await monitor.stop(levels)
            return level
        }
        #expect(level == .some(nil))
    }

    @Test func aSensorWithoutControlPointOrBatteryReportsNotSupported() async throws {
        let errors = try await SimulatedStrap.withMonitor(devices: [SimulatedStrap.bareSensor()]) { monitor, _ in
            var errors: [HeartRateMonitorError] = []
            do throws(HeartRateMonitorError) { try await monitor.resetEnergyExpended() } catch { errors.append(error) }
            do throws(HeartRateMonitorError) { _ = try await monitor.batteryLevel() } catch { errors.append(error) }
            do throws(HeartRateMonitorError) { _ = try await monitor.bodySensorLocation() } catch { errors.append(error) }
            return errors
        }
        #expect(errors.count == 3)
        for error in errors {
            guard case .notSupported = error else {
                Issue.record("expected notSupported, got \(error)")
                continue
            }
        }
    }

    @Test func aSilentSensorEndsTheStreamWithAStallTimeoutAndTheLinkStaysUsable() async throws {
        let silent = VirtualPeripheral.heartRateStrap(measurementInterval: .seconds(600))
        let (error, location) = try await SimulatedStrap.withMonitor(devices: [silent]) { monitor, _ in
            let stream = try await monitor.readings(stallTimeout: .seconds(3))
            var failure: HeartRateMonitorError?
            do {
                for try await _ in stream {}
            } catch let error as HeartRateMonitorError {
                failure = error
            }
            return (failure, try await monitor.bodySensorLocation())
        }
        #expect(error == .timeout(operation: "waiting for a heart rate measurement", after: .seconds(3)))
        #expect(location == .chest)
    }

    @Test func aReadTheStrapNeverAnswersTimesOutWithATypedError() async throws {
        let error = try await SimulatedStrap.withMonitor { monitor, world in
            world.connection(to: SimulatedStrap.address)?.injectOnNext(.readRequest, .neverAnswer)
            var impatient = monitor
            impatient.timeout = .seconds(2)
            do throws(HeartRateMonitorError) {
                _ = try await impatient.batteryLevel()
                return nil as HeartRateMonitorError?
            } catch { return error }
        }
        guard case let .timeout(_, after) = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(after == .seconds(2))
    }

    @Test func aLinkLostMidStreamEndsTheStreamWithDisconnected() async throws {
        let error = try await SimulatedStrap.withMonitor { monitor, world in
            let stream = try await monitor.readings()
            _ = try await stream.prefix(1)
            // The strap's next PDU never arrives: the link drops instead.
            let simulated = try #require(world.connection(to: SimulatedStrap.address))
            let sent = await simulated.statistics.pdusSent[.peripheral] ?? 0
            await simulated.inject(LinkFault(from: .peripheral, pduNumber: sent + 1, action: .dropLink))
            do {
                for try await _ in stream {}
                return nil as HeartRateMonitorError?
            } catch let error as HeartRateMonitorError {
                return error
            }
        }
        guard case .disconnected = error else {
            Issue.record("expected disconnected, got \(String(describing: error))")
            return
        }
    }
}
