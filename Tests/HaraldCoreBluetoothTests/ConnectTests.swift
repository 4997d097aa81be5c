import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: connecting, one record per peripheral, restoration", CoreBluetoothRules())
struct ConnectTests {
    let timeout = Duration.seconds(10)

    @Test func failedConnectionIsReportedAsConnectionFailed() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .fail(cbError(10))
        await #expect(throws: BluetoothError.connectionFailed("CBError 10 (connection failed)")) {
            _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        }
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func connectionRefusedBecauseThePeerLostTheBondSaysSo() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .fail(cbError(14))
        await #expect(throws: BluetoothError.peerRemovedPairingInformation) {
            _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        }
    }

    @Test func connectionAttemptThatTimesOutIsCancelledInCoreBluetooth() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: .seconds(4)) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        await waitForSleepers(world.clock)
        world.clock.advance(by: .seconds(4))
        await #expect(throws: BluetoothError.timeout(operation: "connect", after: .seconds(4))) { _ = try await attempt.value }
        await world.settle()
        #expect(world.central.calls.contains(.cancelConnection(world.peripheral.identifier)))
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func cancellingTheConnectingTaskCancelsTheAttempt() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: timeout) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        attempt.cancel()
        await #expect(throws: BluetoothError.cancelled) { _ = try await attempt.value }
        await world.settle()
        #expect(world.central.calls.last == .cancelConnection(world.peripheral.identifier))
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func connectionCompletingAfterTheAttemptWasAbandonedIsClosed() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: timeout) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        attempt.cancel()
        _ = await attempt.result
        world.central.completeConnection(world.peripheral)
        #expect(world.central.calls.filter { $0 == .cancelConnection(world.peripheral.identifier) }.count == 2)
    }

    @Test func connectingWithTheRadioOffWaitsForPowerOn() async throws {
        let world = FakeWorld.make(poweredOn: false)
        world.central.setRadio(.poweredOff)
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.backend.pendingOperationCount == 1 }
        await world.settle()
        #expect(world.central.calls.isEmpty, "no command while the radio is off")
        world.central.setRadio(.poweredOn)
        let connection = try await attempt.value
        #expect(connection.peripheral == world.identifier)
        #expect(world.central.calls == [.retrieve([world.peripheral.identifier]), .connect(world.peripheral.identifier)])
    }

    @Test(arguments: [(FakeManagerState.unauthorized, RadioState.unauthorized), (.unsupported, .unsupported)])
    func connectingOnARadioThatCannotBeUsedFailsAtOnce(state: FakeManagerState, expected: RadioState) async {
        let world = FakeWorld.make(poweredOn: false)
        world.central.setRadio(state)
        await world.start()
        await #expect(throws: BluetoothError.radioUnavailable(expected)) {
            _ = try await world.backend.connect(to: world.identifier, timeout: nil)
        }
    }

    @Test func connectWaitingForPowerFailsWhenTheRadioTurnsOutUnauthorized() async {
        let world = FakeWorld.make(poweredOn: false)
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.backend.pendingOperationCount == 1 }
        await world.settle()
        world.central.setRadio(.unauthorized)
        await #expect(throws: BluetoothError.radioUnavailable(.unauthorized)) { _ = try await attempt.value }
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func unknownIdentifierFailsToConnect() async {
        let world = FakeWorld.make()
        await #expect(throws: BluetoothError.self) {
            _ = try await world.backend.connect(to: PeripheralIdentifier(rawValue: UUID().uuidString), timeout: timeout)
        }
        await #expect(throws: BluetoothError.self) {
            _ = try await world.backend.connect(to: PeripheralIdentifier(rawValue: "not a UUID"), timeout: timeout)
        }
    }

    @Test func peripheralNeverSeenIsRetrievedFromCoreBluetoothOnce() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, timeout: timeout)
        await first.disconnect()
        _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(world.central.calls.filter { if case .retrieve = $0 { true } else { false } }.count == 1)
    }

    @Test func scannedPeripheralIsConnectedWithoutRetrieval() async throws {
        let world = FakeWorld.make()
        var scan = await world.scan().makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [:], rssi: -50)
        let advertisement = try #require(try await scan.next())
        _ = try await world.backend.connect(to: advertisement.peripheral, timeout: timeout)
        #expect(!world.central.calls.contains { if case .retrieve = $0 { true } else { false } })
    }

    @Test func newObjectForAKnownIdentifierUpdatesTheOneRecord() async throws {
        // CoreBluetooth may hand out a new peripheral object for the same identifier (after
        // restoration, say): the backend keeps one record per identifier and talks to the newest.
        let world = FakeWorld.make()
        var gatt = FakeWorld.profileGATT
        gatt.services[1].characteristics[1].value = [0xBB]
        let replacement = FakePeripheral(identifier: world.peripheral.identifier, name: "Scenario", gatt: gatt, system: world.central.system)
        world.central.add(replacement)
        var scan = await world.scan(ScanRequest(duplicates: .reportAll)).makeAsyncIterator()
        world.central.advertise(world.peripheral, data: [:], rssi: -50)
        world.central.advertise(replacement, data: [:], rssi: -51)
        #expect(try await scan.next()?.peripheral == world.identifier)
        #expect(try await scan.next()?.peripheral == world.identifier)
        let profile = try await world.backend.connectToProfile(world)
        #expect(try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) == [0xBB])
    }

    @Test func connectingTwiceSharesOneConnection() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, timeout: timeout)
        let second = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(world.central.calls.filter { $0 == .connect(world.peripheral.identifier) }.count == 1)
        await second.disconnect()
        #expect(await first.disconnection() == .localRequest)
    }

    @Test func concurrentConnectsShareOneAttempt() async throws {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let first = Task { try await world.backend.connect(to: world.identifier, timeout: timeout) }
        let second = Task { try await world.backend.connect(to: world.identifier, timeout: timeout) }
        await until { world.backend.pendingOperationCount == 2 }
        await world.settle()
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        world.central.completeConnection(world.peripheral)
        _ = try await (first.value, second.value)
        #expect(world.central.calls.filter { $0 == .connect(world.peripheral.identifier) }.count == 1)
    }

    @Test func restoredStateListsPeripheralsAndScanServices() async throws {
        let world = FakeWorld.make(poweredOn: false)
        world.peripheral.lock.withLock { world.peripheral.connectionState = .connected }
        world.central.restore([world.peripheral], scanServices: [BluetoothUUID(0x180D)])
        await world.start()
        let restored = try #require(world.backend.restoredState)
        #expect(restored.peripherals == [.init(identifier: world.identifier, name: "Scenario", isConnected: true)])
        #expect(restored.scanServices == [BluetoothUUID(0x180D)])
    }

    @Test func restoredConnectedPeripheralIsUsableWithoutReconnecting() async throws {
        let world = FakeWorld.make(poweredOn: false)
        world.peripheral.lock.withLock { world.peripheral.connectionState = .connected }
        world.central.restore([world.peripheral], scanServices: [])
        world.central.setRadio(.poweredOn)
        let profile = try await world.backend.connectToProfile(world)
        #expect(!world.central.calls.contains(.connect(world.peripheral.identifier)))
        #expect(try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) == ScenarioProfile.settingInitial)
    }

    @Test func restoredPendingConnectionCompletesWhenTheSystemConnects() async throws {
        let world = FakeWorld.make(poweredOn: false)
        world.peripheral.lock.withLock { world.peripheral.connectionState = .connecting }
        world.central.restore([world.peripheral], scanServices: [])
        world.central.setRadio(.poweredOn)
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: timeout) }
        await until { world.backend.pendingOperationCount == 1 }
        await world.settle()
        world.central.completeConnection(world.peripheral)
        let connection = try await attempt.value
        #expect(connection.peripheral == world.identifier)
        #expect(!world.central.calls.contains(.connect(world.peripheral.identifier)))
    }

    @Test func radioTurningOffEndsConnectionsAndFailsTheirOperations() async throws {
        let world = FakeWorld.make()
        let profile = try await world.backend.connectToProfile(world)
        world.peripheral.lock.withLock { world.peripheral.holding = true }
        let read = Task { try await profile.connection.read(profile[ScenarioProfile.setting], timeout: timeout) }
        await world.peripheral.waitForHeld(1)
        world.central.setRadio(.poweredOff)
        await #expect(throws: BluetoothError.disconnected(.connectionLost)) { _ = try await read.value }
        #expect(await profile.connection.disconnection() == .connectionLost)
        #expect(world.backend.pendingOperationCount == 0)
    }
}
