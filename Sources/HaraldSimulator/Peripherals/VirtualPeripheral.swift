import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink

/// A simulated Bluetooth LE device: what it advertises, the GATT server it runs, and the
/// scripts that make it behave like the real thing.
///
/// A description, not a running device: a ``Simulator`` instantiates it (``makeBehaviour``
/// runs once per simulator, so state such as a step counter is not shared between worlds).
public struct VirtualPeripheral: Sendable {
    /// The device address, which is also its `PeripheralIdentifier` in the simulator.
    public var address: BluetoothAddress
    /// Advertising data (flags, name, service UUIDs, …) as sent on air.
    public var advertisingData: AdvertisingData
    /// Whether it accepts connections (a beacon does not).
    public var isConnectable: Bool
    /// Received signal strength at the central, in dBm; nil when out of range (not heard, and
    /// connection attempts time out).
    public var rssi: RSSI?
    /// Time between advertising events (20 ms … 10.24 s in the specification).
    public var advertisingInterval: Duration
    /// What happens when the central's system pairs with the device.
    public var pairing: PairingResponse
    /// Builds the device's GATT services and scripts for one simulator.
    public var makeBehaviour: @Sendable (PeripheralRuntime) -> PeripheralBehaviour
    /// The connection-oriented L2CAP channels it serves (none by default).
    public var channels: [VirtualChannelService] = []

    /// A device description; `rssi` in dBm at the central, `advertisingInterval` between advertising events.
    public init(
        address: BluetoothAddress, advertisingData: AdvertisingData, isConnectable: Bool = true, rssi: RSSI? = -60,
        advertisingInterval: Duration = .milliseconds(100), pairing: PairingResponse = .accept(after: .milliseconds(500)),
        makeBehaviour: @escaping @Sendable (PeripheralRuntime) -> PeripheralBehaviour
    ) {
        self.address = address
        self.pairing = pairing
        self.advertisingData = advertisingData
        self.isConnectable = isConnectable
        self.rssi = rssi
        self.advertisingInterval = advertisingInterval
        self.makeBehaviour = makeBehaviour
    }

    /// How the simulator and the public API identify the device.
    public var identifier: PeripheralIdentifier { PeripheralIdentifier(address: address) }

    /// The advertised local name, if any.
    public var name: String? { advertisingData.localName }
}

/// How a virtual peripheral answers pairing.
///
/// The simulator pairs the way a phone's system does: when the device refuses a request with
/// Insufficient Authentication, Insufficient Encryption or Encryption Key Size Too Short, pairing
/// starts on its own; the app only sees the refusal and retries.
public enum PairingResponse: Hashable, Sendable {
    /// Pairing succeeds `after` the first refusal: from then on the link is encrypted and
    /// authenticated, so the same request succeeds.
    case accept(after: Duration)
    /// Pairing fails: the link stays unencrypted and protected attributes stay refused.
    case reject
    /// The device runs Harald's Security Manager as responder (see ``DeviceSecurity``), for a
    /// ``Simulator`` whose central runs it too; with a central that does not, protected
    /// attributes stay refused.
    case securityManager(DeviceSecurity)
}

/// What a virtual peripheral does: the services its GATT server offers and a script run for each
/// connection while it lasts (inside the simulation, cancelled when the link closes).
public struct PeripheralBehaviour: Sendable {
    /// The GATT database, laid out in this order (handles from 0x0001).
    package var services: [GATTServiceDefinition]
    /// Runs once per connection, from the moment the link is up until it closes.
    public var onConnection: (@Sendable (PeripheralSession) async -> Void)?
    /// How the device's GATT server behaves (for example an older ATT without Read Multiple
    /// Variable).
    public var serverConfiguration: GATTServer.Configuration

    /// The behaviour of a device declared with the public peripheral API: its definition's
    /// services (as every peripheral backend serves them) and a per-connection script.
    public init(definition: PeripheralDefinition, onConnection: (@Sendable (PeripheralSession) async -> Void)? = nil) {
        self.init(services: definition.gattServices(), serverConfiguration: .peripheral, onConnection: onConnection)
    }

    /// A behaviour serving `services`, running `onConnection` for each connection.
    package init(
        services: [GATTServiceDefinition], serverConfiguration: GATTServer.Configuration = .init(),
        onConnection: (@Sendable (PeripheralSession) async -> Void)? = nil
    ) {
        self.services = services
        self.serverConfiguration = serverConfiguration
        self.onConnection = onConnection
    }
}

/// One connection of a virtual peripheral, as its connection script sees it.
public struct PeripheralSession: Sendable {
    /// The device's running state.
    public let runtime: PeripheralRuntime
    /// The connection at the device's GATT server.
    public let connection: GATTConnectionID
    /// The simulated link of this connection.
    public let link: SimulatedLink

    /// True until the link closes.
    public var isConnected: Bool { link.isOpen }

    /// The central of this connection, as definitions' handlers and events name it.
    public var central: CentralIdentifier { CentralIdentifier(connection) }

    /// Notifies `value` on this connection for the characteristic `uuid` (if the central enabled
    /// notifications for it). Returns whether it was sent.
    @discardableResult
    public func notify(_ uuid: BluetoothUUID, _ value: [UInt8]) async -> Bool {
        await runtime.notify(uuid, value, to: connection) > 0
    }

    /// Notifies `value` for the characteristic `uuid` on this connection now, if the central
    /// enabled notifications and the link's transmit buffer has room, without waiting (as a
    /// peripheral's radio queue takes a notification or refuses it). For ``repeating(every:_:)``
    /// and other synchronous code; returns whether it was sent.
    @discardableResult
    public func notifyWithoutWaiting(_ uuid: BluetoothUUID, _ value: [UInt8]) -> Bool {
        runtime.notifyWithoutWaiting(uuid, value, to: connection) > 0
    }

    /// Calls `tick` every `interval` of simulation time while the link is up, the first time one
    /// interval from now, as a device's hardware timer would: on the thread that moves virtual
    /// time, with no task and no executor job per tick (a device that notifies from its ticks
    /// with ``notifyWithoutWaiting(_:_:)`` costs the simulation nothing between notifications).
    /// Stops when `tick` returns false or once the link has closed. `tick` must not block.
    public func repeating(every interval: Duration, _ tick: @escaping @Sendable () -> Bool) {
        let clock = runtime.clock
        let link = self.link
        let interval = max(interval, .nanoseconds(1))
        clock.repeating(from: clock.now.advanced(by: interval), every: interval) { link.isOpen && tick() && link.isOpen }
    }

    /// Sleeps on the simulation clock; false when the link closed or the script was cancelled.
    public func sleep(for duration: Duration) async -> Bool {
        do { try await runtime.clock.sleep(for: duration) } catch { return false }
        return isConnected
    }
}

/// A running virtual peripheral: its clock and GATT server, shared by its handlers and scripts.
public final class PeripheralRuntime: Sendable {
    /// The simulation clock.
    public let clock: VirtualClock
    /// The device this runtime belongs to.
    public let address: BluetoothAddress
    /// The GATT server: written once by the simulator, before any handler or script can run.
    private let attached = Locked(Attachment())
    /// The device's server as the public peripheral API serves it, made on first use.
    private let servingBackend = Locked<GATTServing?>(nil)

    /// The device as a `ServingBackend`: how a device definition written for any peripheral
    /// backend notifies and watches its centrals when it runs in the simulator.
    public var serving: any ServingBackend {
        let server = server
        let clock = clock
        return servingBackend.withLock { made in
            if let made { return made }
            let fresh = GATTServing(server: server, taskStarter: clock.taskStarter) {}
            let services = channelServices
            fresh.setChannelServing { psm, security, options throws(BluetoothError) in try await services.serve(psm: psm, security: security, options: options)
            }
            made = fresh
            return fresh
        }
    }

    /// The connection-oriented channels the device serves, shared by its links.
    let channelServices = SimulatedChannelServices()

    init(clock: VirtualClock, address: BluetoothAddress) {
        self.clock = clock
        self.address = address
    }

    /// The runtime's hold on its server. The runtime owns it while the simulation runs; once the
    /// simulation has ended it only refers to it (the simulator's device record owns it). A
    /// device's handlers live in its server and commonly capture the runtime, so owning the
    /// server for ever would keep runtime, server and handlers alive in a cycle.
    private struct Attachment {
        var owned: GATTServer?
        weak var referred: GATTServer?
    }

    func attach(_ server: GATTServer) {
        attached.withLock { $0 = Attachment(owned: server) }
    }

    /// Stops owning the server and the serving backend made from it (the simulation has ended).
    func releaseServer() {
        // Taken out and released after the lock, not inside it.
        _ = servingBackend.withLock { made in
            defer { made = nil }
            return made
        }
        // The weak reference is made only now: the first one gives the server a side table,
        // which slows every retain and release of it (one per notification) while it runs.
        _ = attached.withLock { attachment in
            defer { attachment.owned = nil }
            if let owned = attachment.owned { attachment.referred = owned }
            return attachment.owned
        }
    }

    /// The device's GATT server. Available from the moment the simulator created the device
    /// until both the simulator and its simulation are gone.
    public var server: GATTServer {
        guard let server = liveServer else {
            preconditionFailure("a virtual peripheral's server is used before the simulator created it, or after the simulator and its simulation are gone")
        }
        return server
    }

    /// The server while anything still owns it; nil once the simulator and its simulation are
    /// gone (a device whose world has ended serves nothing).
    private var liveServer: GATTServer? { attached.withLock { $0.owned ?? $0.referred } }

    /// The value handle of characteristic `uuid` (the first one, in handle order) in the
    /// device's database as it is now; nil also once the device's world has ended.
    public func valueHandle(_ uuid: BluetoothUUID) -> UInt16? {
        liveServer?.valueHandle(of: uuid)
    }

    /// The device changes its GATT database while it runs, as one restarting into other
    /// firmware does (a buttonless DFU bootloader swaps its services): removes every service
    /// whose UUID is in `removing`, adds `adding` after its last attribute, and indicates Service
    /// Changed, naming the range that covers both, to every connected central that turned the
    /// indication on. Returns once those centrals confirmed it (or failed to); nil when nothing
    /// changed. Services that stay keep their handles.
    ///
    /// A service removed and added again in one call (same definition, say) comes back at new
    /// handles: what the central cached for it is stale, which it can only learn from the
    /// indication.
    @discardableResult
    public func changeServices(removing: [BluetoothUUID] = [], adding: [ServiceDefinition] = []) async throws(GATTDatabaseError) -> ATTHandleRange? {
        try await server.replaceServices(removing, with: adding.map(\.gattService))
    }

    /// ``changeServices(removing:adding:)`` with services in the engine's terms (for this
    /// package's virtual devices, which declare their databases that way).
    @discardableResult
    package func changeServices(removing: [BluetoothUUID] = [], adding: [GATTServiceDefinition]) async throws(GATTDatabaseError) -> ATTHandleRange? {
        try await server.replaceServices(removing, with: adding)
    }

    /// Notifies `value` for characteristic `uuid` now to every connection that enabled
    /// notifications and whose link has room (or only to `connection`), without waiting;
    /// returns how many were sent.
    @discardableResult
    public func notifyWithoutWaiting(_ uuid: BluetoothUUID, _ value: [UInt8], to connection: GATTConnectionID? = nil) -> Int {
        guard let server = liveServer else { return 0 }
        if let connection { return server.notifyWithoutWaiting(characteristic: uuid, value: value, to: connection) ? 1 : 0 }
        guard let handle = server.valueHandle(of: uuid) else { return 0 }
        return server.notifyWithoutWaiting(handle: handle, value: value)
    }

    /// Notifies `value` for characteristic `uuid` to every connection that enabled notifications
    /// (or only to `connection`); returns how many were sent.
    @discardableResult
    public func notify(_ uuid: BluetoothUUID, _ value: [UInt8], to connection: GATTConnectionID? = nil) async -> Int {
        guard let server = liveServer, let handle = server.valueHandle(of: uuid) else { return 0 }
        return await server.notify(handle: handle, value: value, to: connection)
    }
}
