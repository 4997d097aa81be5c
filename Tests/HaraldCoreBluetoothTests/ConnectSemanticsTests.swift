import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

@Suite("CoreBluetooth backend: pending connects, options and which connections are kept", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct ConnectSemanticsTests {
    let timeout = Duration.seconds(10)

    func connects(_ world: FakeWorld) -> Int { world.central.calls.filter { $0 == .connect(world.peripheral.identifier) }.count }
    func cancels(_ world: FakeWorld) -> Int { world.central.calls.filter { $0 == .cancelConnection(world.peripheral.identifier) }.count }

    @Test func aConnectWithoutTimeoutWaitsUntilTheDeviceConnects() async throws {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        #expect(world.clock.sleeperCount == 0, "no timer runs for a pending connect")
        world.central.completeConnection(world.peripheral)
        #expect(try await attempt.value.peripheral == world.identifier)
    }

    @Test func cancellingAPendingConnectCancelsItInCoreBluetooth() async {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        attempt.cancel()
        await #expect(throws: BluetoothError.cancelled) { _ = try await attempt.value }
        await world.settle()
        #expect(world.central.calls.last == .cancelConnection(world.peripheral.identifier))
        #expect(world.backend.pendingOperationCount == 0)
    }

    @Test func connectionOptionsBecomeCoreBluetoothsConnectOptions() async throws {
        let world = FakeWorld.make()
        let options = ConnectionOptions(notifyOnConnection: true, notifyOnDisconnection: false, notifyOnNotification: true, enableAutoReconnect: true)
        _ = try await world.backend.connect(to: world.identifier, options: options, timeout: timeout)
        #expect(
            world.central.connectOptions(of: world.peripheral) == [
                "notifyOnConnection": true, "notifyOnDisconnection": false, "notifyOnNotification": true, "enableAutoReconnect": true,
            ])
    }

    @Test func anAttemptInProgressWhenTheRadioGoesOffIsMadeAgainWhenItComesBack() async throws {
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        world.central.setRadio(.poweredOff)
        world.central.setRadio(.poweredOn)
        #expect(connects(world) == 2)
        world.central.completeConnection(world.peripheral)
        #expect(try await attempt.value.peripheral == world.identifier)
    }

    @Test func aConnectionTheSystemCompletesAfterATimeoutGoesToTheConnectThatCameSince() async throws {
        // The old attempt's completion is taken in before the backend's cancel of it reaches
        // CoreBluetooth: the app connected again meanwhile, so the connection is kept and the
        // cancel is not made.
        let world = FakeWorld.make()
        world.central.connectBehaviour = .hold
        let first = Task { try await world.backend.connect(to: world.identifier, timeout: .seconds(4)) }
        await until { world.central.calls.contains(.connect(world.peripheral.identifier)) }
        await waitForSleepers(world.clock)
        let gate = DispatchSemaphore(value: 0)
        world.central.queue.async { gate.wait() }
        world.central.queue.async { world.central.completeConnection(world.peripheral) }
        world.clock.advance(by: .seconds(4))
        await #expect(throws: BluetoothError.timeout(operation: "connect", after: .seconds(4))) { _ = try await first.value }
        let second = Task { try await world.backend.connect(to: world.identifier, timeout: nil) }
        await until { world.backend.pendingOperationCount == 1 }
        gate.signal()
        let connection = try await second.value
        await world.settle()
        #expect(cancels(world) == 0)
        #expect(connects(world) == 1)
        await connection.disconnect()
    }

    @Test func aRestoredPendingConnectionIsNotCancelledWhenTheAppStopsWaiting() async throws {
        let world = FakeWorld.make()
        world.peripheral.lock.withLock { world.peripheral.connectionState = .connecting }
        world.central.restore([world.peripheral], scanServices: nil)
        let attempt = Task { try await world.backend.connect(to: world.identifier, timeout: .seconds(2)) }
        await until { world.backend.pendingOperationCount == 1 }
        await world.settle()
        await waitForSleepers(world.clock)
        world.clock.advance(by: .seconds(2))
        _ = await attempt.result
        await world.settle()
        #expect(cancels(world) == 0)
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 0, "the system's connection is kept")
        _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(connects(world) == 0, "and returned without connecting again")
    }

    @Test func aConnectionWithAutoReconnectIsKeptWhenTheSystemReconnectsIt() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        #expect(await first.disconnection() == .connectionLost)
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 0)
        let second = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(connects(world) == 1, "the system's reconnection is returned")
        #expect(try await second.discoverServices(nil, timeout: timeout).count == 2)
    }

    @Test func disconnectingAConnectionThatEndedLeavesTheSystemsReconnectionAlone() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        #expect(await first.disconnection() == .connectionLost)
        await first.disconnect()
        await world.settle()
        #expect(cancels(world) == 0, "letting go of the lost connection does not cancel the system's reconnection")
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 0)
        _ = try await world.backend.connect(to: world.identifier, timeout: timeout)
        #expect(connects(world) == 1, "the system's reconnection is returned")
    }

    @Test func cancellingTheSystemConnectionStopsTheSystemsReconnection() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await first.disconnection()
        await world.backend.cancelSystemConnection(to: world.identifier)
        await world.settle()
        #expect(cancels(world) == 1)
        #expect(!first.isReconnectingBySystem)
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 2, "a late reconnection is unwanted now")
    }

    @Test func aConnectionReportsTheSystemsReconnectionAndHandsOverTheNewOne() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await first.disconnection()
        #expect(first.isReconnectingBySystem)
        let next = Task { await first.systemReconnection() }
        world.central.completeConnection(world.peripheral)
        let second = try #require(await next.value)
        #expect(try await second.discoverServices(nil, timeout: timeout).count == 2)
        #expect(connects(world) == 1, "the system made it: no connect call")
    }

    @Test func whetherTheSystemReconnectsIsWhatItSaysNotGuessedFromTheError() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6), isReconnecting: false)
        _ = await first.disconnection()
        #expect(!first.isReconnectingBySystem)
        #expect(await first.systemReconnection() == nil)
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 1, "a connection nobody asked for is cancelled")
    }

    @Test func aSystemWithoutAutomaticReconnectionNeverReconnects() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6), legacy: true)
        _ = await first.disconnection()
        #expect(!first.isReconnectingBySystem)
    }

    @Test func theSystemsReconnectionStopsWithTheRadio() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, options: ConnectionOptions(enableAutoReconnect: true), timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await first.disconnection()
        let next = Task { await first.systemReconnection() }
        await until { world.backend.pendingReconnectionWaiters == 1 }
        world.central.setRadio(.poweredOff)
        #expect(await next.value == nil)
    }

    @Test func aConnectionWithoutAutoReconnectThatTheSystemCompletesUnaskedIsCancelled() async throws {
        let world = FakeWorld.make()
        let first = try await world.backend.connect(to: world.identifier, timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await first.disconnection()
        world.central.completeConnection(world.peripheral)
        await world.settle()
        #expect(cancels(world) == 1)
    }
}
