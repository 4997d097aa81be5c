import Harald
import HaraldCodec
import HaraldCore

// Scenarios of the connection lifecycle: shared links, clean-up when loops end, whole-call
// deadlines, misuse and floods.
extension Scenario {
    /// Waits (bounded) until the peer's CCCD for `uuid` says `enabled`.
    static func expectNotifications(_ enabled: Bool, on uuid: BluetoothUUID, _ harness: ScenarioHarness, _ what: String) async throws {
        // Clean-ups are started when a loop ends; the connection's `settle()` waits for them,
        // after which the peer has seen the CCCD write.
        try checkEqual(try await harness.peer.notificationsEnabled(on: uuid), enabled, what)
    }

    static func twoConnectsShareOneLink(_ harness: ScenarioHarness) async throws {
        let app = try await connect(harness)
        let kit = try await connect(harness)
        try checkEqual(kit.ownerCount, 2, "owners of the shared link")
        let appValues = try await app.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        let kitValues = try await kit.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        var appIterator = appValues.makeAsyncIterator()
        var kitIterator = kitValues.makeAsyncIterator()
        try await harness.peer.notify([0x01], on: ScenarioProfile.status)
        try checkEqual(try await appIterator.next(), [0x01], "the app's first value")
        try checkEqual(try await kitIterator.next(), [0x01], "the kit's first value")

        // One owner's unsubscribe leaves the other's notifications on.
        await app.unsubscribe(appValues)
        try await expectNotifications(true, on: ScenarioProfile.status, harness, "notifications while the kit still listens")
        try await harness.peer.notify([0x02], on: ScenarioProfile.status)
        try checkEqual(try await kitIterator.next(), [0x02], "the kit's value after the app unsubscribed")

        // One owner's disconnect leaves the link up for the other.
        await app.disconnect()
        try checkEqual(kit.ownerCount, 1, "owners after the app disconnected")
        try checkEqual(try await kit.read(ScenarioSpecs.setting), UInt16(0x0201), "the kit's read after the app disconnected")
        try await checkThrows("the app's read after its disconnect", .disconnected(.localRequest)) { try await app.read(ScenarioSpecs.setting) }
        try await harness.peer.notify([0x03], on: ScenarioProfile.status)
        try checkEqual(try await kitIterator.next(), [0x03], "the kit's value after the app disconnected")

        // The last owner's disconnect takes the link down.
        await kit.disconnect()
        try checkEqual(await kit.disconnection(), .localRequest, "how the last owner's connection ended")
        let fresh = try await connect(harness)
        try checkEqual(fresh.ownerCount, 1, "owners of a new link after the last owner left")
        await fresh.disconnect()
    }

    static func breakingTheLoopTurnsNotificationsOff(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        // Subscribes, then has the peer notify once, so the loop has a value to break on.
        func subscribedWithAValueWaiting() async throws -> Subscription<[UInt8]> {
            let values = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
            try await harness.peer.notify([0x01], on: ScenarioProfile.status)
            return values
        }
        // The loop holds the only reference to the subscription: its end ends the subscription.
        for try await value in try await subscribedWithAValueWaiting() {
            try checkEqual(value, [0x01], "the value the loop took")
            break
        }
        await connection.settle()
        try await expectNotifications(false, on: ScenarioProfile.status, harness, "notifications after the loop broke")
        try checkEqual(connection.cleanUpFailures, 0, "failed clean-ups")
        // The clean-up surfaced nowhere: the next operation just works.
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "read after the clean-up")
        await connection.disconnect()
    }

    static func aLoopKeepsItsConnectionWhenNothingElseHoldsIt(_ harness: ScenarioHarness) async throws {
        // The handle and the subscription live only in this function; once the loop has started,
        // only its iterator refers to them.
        func subscriptionAlone() async throws -> Subscription<[UInt8]> {
            let connection = try await connect(harness)
            let values = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
            try await harness.peer.notify([0x01], on: ScenarioProfile.status)
            return values
        }
        var received: [[UInt8]] = []
        for try await value in try await subscriptionAlone() {
            received.append(value)
            // A value the peer sends while the loop runs still arrives: the link is up.
            if received.count == 1 { try await harness.peer.notify([0x02], on: ScenarioProfile.status) }
            if received.count == 2 { break }
        }
        try checkEqual(received, [[0x01], [0x02]], "values of a loop over a subscription nothing else holds")
        // The loop's end let go of the last owner: the link closes by itself.
        for await state in harness.central.linkStates(of: harness.peer.identifier) where state == .disconnected { break }
    }

    static func aLoopEndingWithAnErrorTurnsNotificationsOff(_ harness: ScenarioHarness) async throws {
        struct Stop: Error {}
        let connection = try await connect(harness)
        do {
            try await connection.withSubscription(to: ScenarioSpecs.status, buffering: .oldest(64)) { values in
                try await harness.peer.notify([0x05], on: ScenarioProfile.status)
                for try await _ in values { throw Stop() }
            }
            throw ScenarioFailure("the body's error was swallowed")
        } catch is Stop {}
        try await expectNotifications(false, on: ScenarioProfile.status, harness, "notifications after the body threw")
        await connection.disconnect()
    }

    static func cancellingTheLoopsTaskTurnsNotificationsOff(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let subscribed = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        try await expectNotifications(true, on: ScenarioProfile.status, harness, "notifications while subscribed")
        let results = try await whilePending([{ for try await _ in subscribed {} }], cancelling: true) {}
        _ = results
        await connection.settle()
        try await expectNotifications(false, on: ScenarioProfile.status, harness, "notifications after the loop's task was cancelled")
        await connection.disconnect()
    }

    static func requestKeepsAnExistingSubscription(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let responses = try await connection.subscribe(ScenarioSpecs.response, buffering: .oldest(64))
        var iterator = responses.makeAsyncIterator()
        let answer = try await connection.request(write: [0x01, 0x07], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try checkEqual(answer, ScenarioProfile.answer(to: [0x01, 0x07]), "response")
        await connection.settle()
        try await expectNotifications(true, on: ScenarioProfile.response, harness, "the subscriber's notifications after the request")
        try checkEqual(try await iterator.next(), ScenarioProfile.answer(to: [0x01, 0x07]), "what the subscriber saw")
        // A second request writes no CCCD of its own and still gets its answer.
        let second = try await connection.request(write: [0x02], to: ScenarioSpecs.command, response: ScenarioSpecs.response)
        try checkEqual(second, ScenarioProfile.answer(to: [0x02]), "second response")
        try checkEqual(try await iterator.next(), ScenarioProfile.answer(to: [0x02]), "what the subscriber saw next")
        await connection.disconnect()
    }

    static func aSecondLoopOverOneSubscriptionFails(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let values = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        // Two loops wait on one subscription at once: whichever comes second is refused, and
        // then ends the subscription, which releases the first.
        let loop: @Sendable () async throws -> Void = {
            var iterator = values.makeAsyncIterator()
            do { _ = try await iterator.next() } catch {
                await connection.unsubscribe(values)
                throw error
            }
        }
        let results = try await whilePending([loop, loop]) {}
        let refusals = results.filter { result in
            if case .failure(BluetoothError.misuse) = result { return true } else { return false }
        }
        try checkEqual(refusals.count, 1, "loops refused as misuse (results: \(results))")
        await connection.disconnect()
    }

    static func aFloodThenADisconnectionEndsTheLoopWithTheDisconnection(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let values = try await connection.subscribe(ScenarioSpecs.status, buffering: .newest(4))
        for index in 0..<200 { try await harness.peer.notify([UInt8(truncatingIfNeeded: index)], on: ScenarioProfile.status) }
        try await harness.peer.disconnectFromPeer()
        _ = await connection.disconnection()
        var received = 0
        do {
            for try await _ in values { received += 1 }
            throw ScenarioFailure("the loop ended normally after \(received) values")
        } catch let error as BluetoothError {
            try checkEqual(error, .disconnected(.remoteRequest), "how the flooded loop ended")
        }
        try check(received <= 4, "at most the buffer's 4 values are delivered, got \(received)")
    }

    static func oneDeadlineCoversDiscoveryAndTheRead(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        // Nothing discovered yet: the read must discover the service and its characteristics
        // first (peers answer discovery; they hold the read). The error names the call's
        // timeout; the simulator's own tests check the exact instant it fails, in virtual time.
        try await harness.peer.holdAnswers()
        let short = harness.shortTimeout
        let results = try await whilePending([{ _ = try await connection.read(ScenarioSpecs.setting, timeout: short) }]) {
            try await harness.peer.waitForHeldRequests(1)
            await harness.elapse(short)
        }
        let error = try results[0].failure("read behind a held peer")
        guard case let BluetoothError.timeout(_, after) = error else { throw ScenarioFailure("expected a timeout, got \(error)") }
        try checkEqual(after, short, "the whole call's timeout")
        try await harness.peer.resumeAnswering()
        await connection.disconnect()
    }

    static func serviceChangedMidStreamEndsTheStreamAndRediscovers(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        let values = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        var iterator = values.makeAsyncIterator()
        try await harness.peer.notify([0x01], on: ScenarioProfile.status)
        try checkEqual(try await iterator.next(), [0x01], "the value before the change")
        var changes = connection.serviceChanges().makeAsyncIterator()

        try await harness.peer.changeServices()
        do {
            while try await iterator.next() != nil {}
            throw ScenarioFailure("the subscription on the changed service ended normally")
        } catch let error as BluetoothError {
            guard case .serviceChanged = error else { throw ScenarioFailure("the subscription ended with \(error), not serviceChanged") }
        }
        // The connection has forgotten the old attributes once it reports the change.
        try check(await changes.next() != nil, "the connection reports the change")

        // Typed operations find the service again on their own.
        try checkEqual(try await connection.read(ScenarioSpecs.setting), UInt16(0x0201), "read after the change")
        let again = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64))
        var againIterator = again.makeAsyncIterator()
        try await harness.peer.notify([0x02], on: ScenarioProfile.status)
        try checkEqual(try await againIterator.next(), [0x02], "a value on the new subscription")
        await connection.settle()
        try checkEqual(connection.cleanUpFailures, 0, "clean-ups that wrote a stale CCCD and failed")
        await connection.disconnect()
    }

    /// An app that subscribes again as soon as its loop ends with `.serviceChanged` (without
    /// waiting for `serviceChanges()`) gets a subscription on the rediscovered characteristic.
    static func resubscribingRightAfterServiceChangedRediscovers(_ harness: ScenarioHarness) async throws {
        let connection = try await connect(harness)
        var iterator = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64)).makeAsyncIterator()
        try await harness.peer.notify([0x01], on: ScenarioProfile.status)
        try checkEqual(try await iterator.next(), [0x01], "the value before the change")

        try await harness.peer.changeServices()
        do {
            while try await iterator.next() != nil {}
            throw ScenarioFailure("the subscription on the changed service ended normally")
        } catch let error as BluetoothError {
            guard case .serviceChanged = error else { throw ScenarioFailure("the subscription ended with \(error), not serviceChanged") }
        }
        let again: Subscription<[UInt8]>
        do { again = try await connection.subscribe(ScenarioSpecs.status, buffering: .oldest(64)) } catch {
            throw ScenarioFailure("subscribing again right after the change failed: \(error)")
        }
        var againIterator = again.makeAsyncIterator()
        try await harness.peer.notify([0x02], on: ScenarioProfile.status)
        try checkEqual(try await againIterator.next(), [0x02], "a value on the new subscription")
        await connection.settle()
        try checkEqual(connection.cleanUpFailures, 0, "clean-ups that wrote a stale CCCD and failed")
        await connection.disconnect()
    }
}
