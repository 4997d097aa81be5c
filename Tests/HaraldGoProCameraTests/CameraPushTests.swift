import Harald
import HaraldGoPro
import HaraldSimulator
import Testing

@Suite("GoProCamera pushes and registration against the simulated camera")
struct CameraPushTests {
    @Test func registeringReturnsTheCurrentValuesAndTheShutterPushesEncoding() async throws {
        let (current, updates) = try await withSimulatedCamera { camera, _ in
            let watch = try await camera.watchStatuses([.encoding])
            try await camera.setShutter(on: true)
            let updates = try await first(1, of: watch.statusUpdates)
            return (watch.current, updates)
        }
        #expect(current.bool(.encoding) == false)
        #expect(updates.count == 1)
        #expect(updates.first?.bool(.encoding) == true)
        #expect(updates.first?.contains(GoProStatusID.busy.rawValue) == false)
    }

    @Test func whileRecordingTheVideoProgressIsPushedEverySecond() async throws {
        let progress = try await withSimulatedCamera { camera, _ in
            let watch = try await camera.watchStatuses([.videoEncodingDuration, .remainingVideoTime])
            try await camera.setShutter(on: true)
            var seen: [UInt64] = []
            for await values in watch.statusUpdates {
                if let seconds = values.integer(.videoEncodingDuration) { seen.append(seconds) }
                if seen.count == 4 { break }
            }
            return seen
        }
        #expect(progress == [0, 1, 2, 3])
    }

    @Test func aSettingChangeIsPushedToARegisteredCamera() async throws {
        let push = try await withSimulatedCamera { camera, _ in
            let pushes = await camera.pushes()
            let current = try await camera.registerForSettingUpdates([.videoResolution])
            #expect(current.integer(.videoResolution) == 9)
            try await camera.set(.videoResolution, to: 24)
            return try await first(1, of: pushes).first
        }
        guard case let .settingValues(values)? = push else {
            Issue.record("expected a setting push, got \(String(describing: push))")
            return
        }
        #expect(values.integer(.videoResolution) == 24)
    }

    @Test func choosing5KPushesTheFrameRatesItStillAllows() async throws {
        let (before, push) = try await withSimulatedCamera { camera, _ in
            let pushes = await camera.pushes()
            let before = try await camera.registerForSettingCapabilityUpdates([.framesPerSecond])
            try await camera.set(.videoResolution, to: 24)
            return (before, try await first(1, of: pushes).first)
        }
        #expect(before.count == 9)
        guard case let .settingCapabilities(values)? = push else {
            Issue.record("expected a capability push, got \(String(describing: push))")
            return
        }
        #expect(values.map(\.id).allSatisfy { $0 == GoProSettingID.framesPerSecond.rawValue })
        #expect(values.map { $0.value.first ?? 0xFF } == [5, 8, 10])
    }

    @Test func afterUnregisteringNoStatusIsPushed() async throws {
        let statistics = try await withSimulatedCamera { camera, _ in
            try await camera.registerForStatusUpdates([.encoding])
            try await camera.unregisterFromStatusUpdates([.encoding])
            try await camera.setShutter(on: true)
            // A request on the query channel after the shutter: any push would have come first.
            _ = try await camera.statuses([.encoding])
            return await camera.statistics
        }
        #expect(statistics.pushes == 0)
    }

    @Test func pushStreamsEndWhenTheConnectionEnds() async throws {
        let count = try await withSimulatedCamera { camera, _ in
            let watch = try await camera.watchStatuses([.encoding])
            await camera.connection.disconnect()
            var count = 0
            for await _ in watch.pushes { count += 1 }
            return count
        }
        #expect(count == 0)
    }
}
