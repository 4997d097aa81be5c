import Foundation
import Harald
import HaraldCodec
import HaraldCoreBluetooth
import HaraldScenarioSuite
import Testing

/// iOS 17's automatic reconnection seen through `Central`: the system's reconnection outlives
/// the handles on the lost link, is announced, and is joined rather than fought.
@Suite("Central on CoreBluetooth: the system's automatic reconnection", CoreBluetoothRules(), .timeLimit(.minutes(1)))
struct SystemReconnectionTests {
    let timeout = Duration.seconds(10)
    let autoReconnect = ConnectionOptions(enableAutoReconnect: true)

    func connects(_ world: FakeWorld) -> Int { world.central.calls.filter { $0 == .connect(world.peripheral.identifier) }.count }
    func cancels(_ world: FakeWorld) -> Int { world.central.calls.filter { $0 == .cancelConnection(world.peripheral.identifier) }.count }

    /// A central's link made with automatic reconnection, lost (CoreBluetooth error 6, the
    /// connection timed out), with the system now reconnecting it; the lost handle is returned.
    func aLostLinkTheSystemReconnects() async throws -> (FakeWorld, Central, PeripheralConnection) {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(to: world.identifier, options: autoReconnect, timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await connection.disconnection()
        return (world, central, connection)
    }

    /// Collects link states into a box the test can poll.
    final class States: Sendable {
        let seen = Locked<[PeripheralLinkState]>([])
        let task: Task<Void, Never>
        init(_ stream: AsyncStream<PeripheralLinkState>) {
            let seen = self.seen
            task = Task { for await state in stream { seen.withLock { $0.append(state) } } }
        }
        var all: [PeripheralLinkState] { seen.value }
        deinit { task.cancel() }
    }

    @Test func releasingTheLastHandleAfterALinkLossKeepsTheSystemsReconnection() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        var connection: PeripheralConnection? = try await central.connect(to: world.identifier, options: autoReconnect, timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await connection?.disconnection()
        connection = nil
        await until { central.linkStateNow(of: world.identifier) == .reconnecting }
        await world.settle()
        #expect(cancels(world) == 0, "the released handle did not cancel the system's reconnection")
        world.central.completeConnection(world.peripheral)
        await until { central.linkStateNow(of: world.identifier) == .connected }
        let again = try await central.connect(to: world.identifier, timeout: timeout)
        #expect(connects(world) == 1, "the reconnected link is returned, not connected again")
        #expect(try await again.discoverAll().count == 2)
    }

    @Test func anExplicitDisconnectOfTheLostHandleKeepsTheSystemsReconnection() async throws {
        let (world, _, connection) = try await aLostLinkTheSystemReconnects()
        await connection.disconnect()
        await world.settle()
        #expect(cancels(world) == 0)
    }

    @Test func linkStatesAnnounceTheSystemsReconnection() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let states = States(central.linkStates(of: world.identifier))
        let connection = try await central.connect(to: world.identifier, options: autoReconnect, timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await connection.disconnection()
        await until { states.all.last == .reconnecting }
        world.central.completeConnection(world.peripheral)
        await until { states.all.last == .connected }
        #expect(states.all == [.disconnected, .connecting, .connected, .reconnecting, .connected])
    }

    @Test func aLossWithoutReconnectionIsAnnouncedAsDisconnected() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let states = States(central.linkStates(of: world.identifier))
        let connection = try await central.connect(to: world.identifier, timeout: timeout)
        world.central.dropConnection(world.peripheral, error: cbError(6))
        _ = await connection.disconnection()
        await until { states.all.last == .disconnected && states.all.count == 4 }
        #expect(states.all == [.disconnected, .connecting, .connected, .disconnected])
    }

    @Test func theConnectionsStateStreamEndsWithReconnecting() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(to: world.identifier, options: autoReconnect, timeout: timeout)
        let seen = Locked<[ConnectionState]>([])
        let reader = Task { for await state in connection.states() { seen.withLock { $0.append(state) } } }
        await until { seen.value == [.connected] }
        world.central.dropConnection(world.peripheral, error: cbError(6))
        await reader.value
        #expect(seen.value == [.connected, .reconnecting(after: .connectionLost)])
    }

    @Test func aConnectDuringTheReconnectionJoinsIt() async throws {
        let (world, central, _) = try await aLostLinkTheSystemReconnects()
        await until { central.linkStateNow(of: world.identifier) == .reconnecting }
        let joining = Task { try await central.connect(to: world.identifier, timeout: timeout) }
        await until { world.backend.pendingOperationCount == 1 }
        world.central.completeConnection(world.peripheral)
        let again = try await joining.value
        #expect(connects(world) == 1)
        #expect(again.ownerCount == 1)
        #expect(try await again.discoverAll().count == 2)
    }

    @Test func withReconnectionJoinsTheSystemsReconnectionInsteadOfCancellingIt() async throws {
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let runs = Locked(0)
        let policy = ReconnectPolicy(maximumAttempts: 3, initialDelay: .zero)
        let loop = Task {
            try await central.withReconnection(to: world.identifier, options: autoReconnect, policy: policy, connectTimeout: timeout) { connection, run in
                runs.withLock { $0 = run + 1 }
                if run == 0 {
                    world.central.dropConnection(world.peripheral, error: cbError(6))
                    throw BluetoothError.disconnected(await connection.disconnection())
                }
                return try await connection.discoverAll().count
            }
        }
        // The link was lost (the loop may already be connecting again, joining the system's attempt).
        await until { runs.value == 1 && central.linkStateNow(of: world.identifier) != .connected }
        world.central.completeConnection(world.peripheral)
        #expect(try await loop.value == 2)
        await world.settle()
        #expect(cancels(world) == 1, "only the loop's own disconnect at its end")
        #expect(connects(world) == 1, "the loop's second connect joined the system's attempt")
    }

    @Test func disconnectAllStopsTheSystemsReconnection() async throws {
        let (world, central, _) = try await aLostLinkTheSystemReconnects()
        await until { central.linkStateNow(of: world.identifier) == .reconnecting }
        await central.disconnectAll(from: world.identifier)
        await until { central.linkStateNow(of: world.identifier) == .disconnected }
        await world.settle()
        #expect(cancels(world) == 1)
    }
}
