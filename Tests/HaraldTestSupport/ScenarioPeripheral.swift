import HaraldL2CAP
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldScenarioSuite

/// The scenario peer as a GATT server of its own, for a ``VirtualController`` to put within
/// range (``virtualPeer``).
public struct ScenarioPeripheral: Sendable {
    public let address: BluetoothAddress
    public let state: ScenarioPeerState
    public let server: GATTServer

    public init(address: BluetoothAddress = BluetoothAddress("C0:5C:E4:00:00:01", kind: .random)!) throws {
        let state = ScenarioPeerState()
        // The command handler notifies through the server it belongs to, which exists only once
        // the definitions have been laid out. The server holds the handler, so the handler holds
        // the server weakly (a strong reference would keep both alive forever).
        let serverSlot = Locked(WeakServer())
        let server = try GATTServer(services: Self.services(state, serverSlot))
        serverSlot.withLock { $0.server = server }
        self.address = address
        self.state = state
        self.server = server
        self.serverSlot = serverSlot
    }

    /// Where the service's command handler finds the server.
    private let serverSlot: Locked<WeakServer>

    private struct WeakServer: Sendable {
        weak var server: GATTServer?
    }

    /// The scenario service, answering commands through the server in `slot` (on the response
    /// characteristic wherever it is now).
    private static func services(_ state: ScenarioPeerState, _ slot: Locked<WeakServer>) -> [GATTServiceDefinition] {
        ScenarioPeerServices.definitions(state: state) { answer, connection in
            guard let server = slot.value.server, let handle = server.valueHandle(of: ScenarioProfile.response) else { return }
            await server.notify(handle: handle, value: answer, to: connection)
        }
    }

    /// Removes the scenario service and adds it again after the last attribute (new handles,
    /// same values), and indicates Service Changed to every link that turned it on; returns once
    /// they confirmed.
    public func changeServices() async throws {
        try await server.replaceServices([ScenarioProfile.service], with: Self.services(state, serverSlot))
    }

    /// The peer as a controller hears it.
    public var virtualPeer: VirtualPeer {
        var peer = VirtualPeer(address: address, advertisingData: ScenarioPeerServices.advertisingData.bytes, server: server)
        // The scenario suite's echo channel (ScenarioProfile.echoPSM).
        peer.channelServers = [CreditBasedChannels.Server(spsm: ScenarioProfile.echoPSM)]
        return peer
    }

    /// Notifies `value` on characteristic `uuid` to every link that subscribed.
    public func notify(_ value: [UInt8], on uuid: BluetoothUUID) async {
        guard let handle = server.valueHandle(of: uuid) else { return }
        await server.notify(handle: handle, value: value)
    }
}
