import Harald
import HaraldCoreBluetooth
import Testing

/// The observable adapter over a connection, driven by the CoreBluetooth fake.
@Suite("Observed connection state for UI code", CoreBluetoothRules())
struct ObservedConnectionTests {
    @MainActor
    @Test func theObservedStateFollowsTheLinkUntilItDrops() async throws {
        guard #available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *) else { return }
        let world = FakeWorld.make()
        let central = Central(backend: world.backend, clock: world.clock)
        let connection = try await central.connect(to: world.identifier, timeout: .seconds(10))
        let observed = ObservedConnection(connection)
        #expect(observed.rssiInterval == nil, "no RSSI polling unless asked for")
        #expect(observed.state == .connected)
        let following = Task { await observed.follow() }
        while observed.mtu == nil { await Task.yield() }
        world.central.dropConnection(world.peripheral)
        await following.value
        guard case .disconnected = observed.state else {
            Issue.record("state after the drop: \(observed.state)")
            return
        }
    }
}
