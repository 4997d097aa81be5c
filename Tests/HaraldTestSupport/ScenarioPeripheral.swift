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
        // the definitions have been laid out.
        let serverSlot = Locked<GATTServer?>(nil)
        let server = try GATTServer(services: ScenarioPeerServices.definitions(state: state) { answer, connection in
            guard let server = serverSlot.value else { return }
            guard let handle = await server.database.characteristic(ScenarioProfile.response)?.valueHandle else { return }
            await server.notify(handle: handle, value: answer, to: connection)
        })
        serverSlot.withLock { $0 = server }
        self.address = address
        self.state = state
        self.server = server
    }

    /// The peer as a controller hears it.
    public var virtualPeer: VirtualPeer {
        VirtualPeer(address: address, advertisingData: ScenarioPeerServices.advertisingData.bytes, server: server)
    }

    /// Notifies `value` on characteristic `uuid` to every link that subscribed.
    public func notify(_ value: [UInt8], on uuid: BluetoothUUID) async {
        guard let handle = await server.database.characteristic(uuid)?.valueHandle else { return }
        await server.notify(handle: handle, value: value)
    }
}
