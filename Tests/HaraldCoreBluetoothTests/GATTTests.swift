import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth
import HaraldScenarioSuite
import HaraldSimulator
import Testing

@Suite("CoreBluetooth backend: GATT operations, routing and flow control", CoreBluetoothRules())
struct GATTTests {
    let timeout = Duration.seconds(10)

    @Test func notificationArrivingWhileAReadIsOutstandingAnswersTheRead() async throws {
        // The documented edge: CoreBluetooth cannot tell the two apart, so the value answers the
        // oldest read, and the read's real answer then reaches subscribers as a notification.
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        var updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096))).makeAsyncIterator()
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        world.peripheral.lock.withLock { world.peripheral.holding = true }
        let read = Task { try await profile.connection.read(status, timeout: timeout) }
        await world.peripheral.waitForHeld(1)
        world.peripheral.notify([0x55], on: ScenarioProfile.status)
        #expect(try await read.value == [0x55])
        world.peripheral.resumeAnswering()
        #expect(await updates.next() == [0x55])
    }

    /// Every operation's timeout is a deadline on one schedule: one task sleeps for all of them,
    /// not one per operation.
    @Test func operationsInFlightShareOneSleepingTimer() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let setting = profile[ScenarioProfile.setting]
        world.peripheral.lock.withLock { world.peripheral.holding = true }
        let reads = (0..<8).map { index in
            Task { try await profile.connection.read(index.isMultiple(of: 2) ? status : setting, timeout: timeout) }
        }
        await until { world.backend.pendingOperationCount == 8 }
        await waitForSleepers(world.clock)
        #expect(world.clock.sleeperCount == 1)
        world.peripheral.resumeAnswering()
        for read in reads { _ = try await read.value }
    }

    /// After its operations are answered the sleeper stays for the next ones until the time it
    /// was set for; a backend released before then cancels it.
    @Test func aReleasedBackendLeavesNoTimeoutSleeperOnItsClock() async throws {
        let clock: VirtualClock
        do {
            let world = FakeWorld.make()
            clock = world.clock
            let profile = try await world.backend.connectToProfile(world)
            _ = try await profile.connection.read(profile[ScenarioProfile.status], timeout: timeout)
            await waitForSleepers(world.clock)
            await world.settle()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while clock.sleeperCount > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(clock.sleeperCount == 0)
    }

    @Test func lateAnswerToATimedOutReadIsNotMistakenForANotification() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        var updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096))).makeAsyncIterator()
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        world.peripheral.lock.withLock { world.peripheral.holding = true }
        let read = Task { try await profile.connection.read(status, timeout: .seconds(2)) }
        await world.peripheral.waitForHeld(1)
        await waitForSleepers(world.clock)
        world.clock.advance(by: .seconds(2))
        _ = await read.result
        world.peripheral.resumeAnswering()  // the late answer arrives now
        world.peripheral.notify([0x99], on: ScenarioProfile.status)
        #expect(await updates.next() == [0x99])
        #expect(try await profile.connection.read(status, timeout: timeout) == [0x99], "the next read gets its own answer")
    }

    @Test func notificationsFromAnotherThreadStayInOrderWhileReadsRunConcurrently() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let setting = profile[ScenarioProfile.setting]
        let updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096)))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        let peripheral = world.peripheral
        DispatchQueue.global().async {
            for index in 0..<200 { peripheral.notify([UInt8(index)], on: ScenarioProfile.status) }
        }
        let connection = profile.connection
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<50 { group.addTask { try await connection.read(setting, timeout: .seconds(10)) } }
            for try await value in group { #expect(value == ScenarioProfile.settingInitial) }
        }
        var received: [UInt8] = []
        for await value in updates {
            received += value
            if received.count == 200 { break }
        }
        #expect(received == (0..<200).map { UInt8($0) })
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aLosslessStreamThatOverflowsEndsWithoutStallingTheBackend() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let updates = await profile.connection.valueUpdates(for: status, buffering: .lossless(limit: 2))
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        for index in 0..<3 { world.peripheral.notify([UInt8(index)], on: ScenarioProfile.status) }
        var received: [[UInt8]] = []
        for await value in updates { received.append(value) }
        #expect(received == [[0], [1]])
        await until { world.backend.liveStreamCount == 0 }
        #expect(try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) == ScenarioProfile.settingInitial)
    }

    @Test func everySubscriberReceivesEachNotification() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        var first = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096))).makeAsyncIterator()
        var second = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096))).makeAsyncIterator()
        try await profile.connection.setNotifications(true, for: status, timeout: timeout)
        world.peripheral.notify([0x01], on: ScenarioProfile.status)
        #expect(await first.next() == [0x01])
        #expect(await second.next() == [0x01])
    }

    @Test func writeWithoutResponseWaitsForReadinessInsteadOfDropping() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        world.peripheral.grantWriteCredits(0)
        let chunks: [[UInt8]] = [[1], [2], [3]]
        let writer = Task {
            for chunk in chunks {
                try await profile.connection.write(chunk, to: profile[ScenarioProfile.stream], kind: .withoutResponse, timeout: timeout)
            }
        }
        for sent in 1...chunks.count {
            await until { world.backend.pendingOperationCount == 1 }  // queued, waiting for room
            #expect(FakeScenarioPeer(world: world).writesWithoutResponse(to: ScenarioProfile.stream).count == sent - 1)
            world.peripheral.grantWriteCredits(1)
        }
        try await writer.value
        #expect(FakeScenarioPeer(world: world).writesWithoutResponse(to: ScenarioProfile.stream) == chunks)
        #expect(world.peripheral.dropped == 0)
    }

    @Test func queuedWriteWithoutResponseTimesOutWhenNoRoomComes() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        world.peripheral.grantWriteCredits(0)
        let write = Task {
            try await profile.connection.write([7], to: profile[ScenarioProfile.stream], kind: .withoutResponse, timeout: .seconds(1))
        }
        // Queued with its deadline (a sleeper left by the discovery before may still sleep: the
        // write's earlier deadline replaces it).
        await until { world.backend.pendingOperationCount == 1 }
        await waitForSleepers(world.clock)
        world.clock.advance(by: .seconds(1))
        await #expect(throws: BluetoothError.self) { try await write.value }
        world.peripheral.grantWriteCredits(5)
        #expect(FakeScenarioPeer(world: world).writesWithoutResponse(to: ScenarioProfile.stream).isEmpty, "a timed-out write is not sent later")
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func attErrorBecomesAnAttributeErrorOnTheCharacteristic() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let setting = profile[ScenarioProfile.setting]
        world.peripheral.lock.withLock { world.peripheral.characteristic(ScenarioProfile.setting)?.readError = attError(0x05) }
        await #expect(throws: BluetoothError.attribute(.insufficientAuthentication, on: setting.id)) {
            _ = try await profile.connection.read(setting, timeout: timeout)
        }
    }

    @Test func writeErrorIsReported() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let setting = profile[ScenarioProfile.setting]
        world.peripheral.lock.withLock { world.peripheral.characteristic(ScenarioProfile.setting)?.writeError = attError(0x80) }
        await #expect(throws: BluetoothError.attribute(ATTErrorCode(rawValue: 0x80), on: setting.id)) {
            try await profile.connection.write([1], to: setting, kind: .withResponse, timeout: timeout)
        }
    }

    @Test func descriptorValuesComeBackAsBytes() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let descriptors = try await profile.connection.discoverDescriptors(of: profile[ScenarioProfile.status], timeout: timeout)
        let cccd = try #require(descriptors.first { $0.uuid == BluetoothUUID(0x2902) })
        let userDescription = try #require(descriptors.first { $0.uuid == BluetoothUUID(0x2901) })
        #expect(try await profile.connection.readDescriptor(cccd, timeout: timeout) == [0x00, 0x00])
        #expect(try await profile.connection.readDescriptor(userDescription, timeout: timeout) == Array("Status".utf8))
    }

    @Test func writingTheCCCDTurnsNotificationsOnThroughSetNotifyValue() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let descriptors = try await profile.connection.discoverDescriptors(of: status, timeout: timeout)
        let cccd = try #require(descriptors.first { $0.uuid == BluetoothUUID(0x2902) })
        var updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096))).makeAsyncIterator()
        try await profile.connection.writeDescriptor([0x01, 0x00], to: cccd, timeout: timeout)
        #expect(world.peripheral.received.last == .setNotify(true, ScenarioProfile.status))
        world.peripheral.notify([0x42], on: ScenarioProfile.status)
        #expect(await updates.next() == [0x42])
    }

    @Test func everyAttributeHasItsOwnIdentityAndNoHandle() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let services = try await connection.discoverServices(nil, timeout: timeout)
        #expect(services.map(\.uuid) == [BluetoothUUID(0x180F), ScenarioProfile.service])
        var identities: [AttributeID] = []
        for service in services {
            #expect(service.handles == nil && service.id.handle == nil)
            identities.append(service.id)
            for characteristic in try await connection.discoverCharacteristics(nil, of: service, timeout: timeout) {
                #expect(characteristic.valueHandle == nil && characteristic.endHandle == nil && characteristic.id.handle == nil)
                #expect(characteristic.service == service.uuid)
                identities.append(characteristic.id)
                for descriptor in try await connection.discoverDescriptors(of: characteristic, timeout: timeout) {
                    #expect(descriptor.handle == nil && descriptor.characteristicID == characteristic.id)
                    identities.append(descriptor.id)
                }
            }
        }
        #expect(Set(identities).count == identities.count && identities.count == 2 + 6 + 2)
        // Discovering the same objects again on the same connection gives the same identities.
        #expect(try await connection.discoverServices(nil, timeout: timeout).map(\.id) == services.map(\.id))
    }

    @Test func discoveryFiltersByUUID() async throws {
        let world = FakeWorld.make()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let services = try await connection.discoverServices([BluetoothUUID(0x180F)], timeout: timeout)
        #expect(services.map(\.uuid) == [BluetoothUUID(0x180F)])
        #expect(world.peripheral.received.first == .discoverServices([BluetoothUUID(0x180F)]))
    }

    @Test func operationOnACharacteristicNotDiscoveredOnThisConnectionFails() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        await profile.connection.disconnect()
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        await #expect(throws: BluetoothError.self) { _ = try await connection.read(profile[ScenarioProfile.setting], timeout: timeout) }
    }

    @Test func invalidatedServiceIsForgottenUntilDiscoveredAgain() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let status = profile[ScenarioProfile.status]
        let updates = (await profile.connection.valueUpdates(for: status, buffering: .oldest(4096)))
        world.peripheral.invalidate([ScenarioProfile.service])
        for await _ in updates {}  // the stream ends with the service
        await #expect(throws: BluetoothError.self) { _ = try await profile.connection.read(status, timeout: timeout) }
        let again = try await world.backend.connectToProfile(world)
        #expect(again[ScenarioProfile.status].id != status.id)
        #expect(try await again.connection.read(again[ScenarioProfile.status], timeout: timeout) == ScenarioProfile.statusInitial)
    }

    @Test func mtuAndWriteLengthsComeFromCoreBluetooth() async throws {
        let world = FakeWorld.make()
        world.peripheral.lock.withLock { world.peripheral.mtu = 185 }
        let connection = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(await connection.mtu() == 185)
        #expect(await connection.maximumWriteLength(for: .withoutResponse) == 182)
        #expect(await connection.maximumWriteLength(for: .withResponse) == 512)
    }

    @Test func disconnectionFinishesStreamsAndLeavesNothingPending() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        let updates = await profile.connection.valueUpdates(for: profile[ScenarioProfile.status], buffering: .oldest(4096))
        let waiter = Task { await profile.connection.disconnection() }
        await until { world.backend.pendingOperationCount == 1 }
        world.central.dropConnection(world.peripheral, error: cbError(6))
        for await _ in updates {}
        #expect(await waiter.value == .connectionLost)
        #expect(world.backend.pendingOperationCount == 0)
        #expect(world.backend.liveStreamCount == 0)
    }
}
