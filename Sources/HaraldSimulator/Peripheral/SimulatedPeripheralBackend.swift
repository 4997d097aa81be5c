import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink

extension Simulator {
    /// A `PeripheralBackend` that serves definitions as devices of this world, at `address`:
    /// the simulated central finds them by their advertisement and connects as to any virtual
    /// device, in virtual time. `pairing` is how the device answers pairing.
    public func peripheralBackend(
        at address: BluetoothAddress, rssi: RSSI = -55, advertisingInterval: Duration = .milliseconds(100),
        pairing: PairingResponse = .accept(after: .milliseconds(500))
    ) -> any PeripheralBackend {
        SimulatedPeripheralBackend(world: self, address: address, rssi: rssi, advertisingInterval: advertisingInterval, pairing: pairing)
    }
}

/// Serves a ``PeripheralDefinition`` as a virtual device of a ``Simulator``.
struct SimulatedPeripheralBackend: PeripheralBackend {
    let world: Simulator
    let address: BluetoothAddress
    let rssi: RSSI
    let advertisingInterval: Duration
    let pairing: PairingResponse

    func serve(_ definition: PeripheralDefinition) async throws(BluetoothError) -> any ServingBackend {
        guard world.runtime(of: address) == nil else { throw .misuse("a device already serves at \(address)") }
        // What a scanner gets: legacy advertising and its scan response when they fit, else the
        // whole advertisement as an extended advertising set carries it.
        let advertisement = definition.advertisement
        let heard =
            advertisement.legacyPayloads().map { AdvertisingData(structures: $0.data.structures + $0.scanResponse.structures) }
            ?? advertisement.advertisingData
        let services = definition.gattServices()
        let device = VirtualPeripheral(
            address: address, advertisingData: heard,
            isConnectable: definition.advertisement.isConnectable, rssi: rssi, advertisingInterval: advertisingInterval, pairing: pairing
        ) { _ in PeripheralBehaviour(services: services, serverConfiguration: .peripheral) }
        do { try world.add(device) } catch { throw .backend("the definition's database: \(error)") }
        guard let runtime = world.runtime(of: address) else { throw .backend("the simulator lost the device at \(address)") }
        let (world, address) = (world, address)
        let serving = GATTServing(server: runtime.server, taskStarter: world.clock.taskStarter) {
            await world.remove(address)  // its links drop; the address is free to serve again
        }
        let channelServices = runtime.channelServices
        serving.setChannelServing { psm, security, options throws(BluetoothError) in
            try await channelServices.serve(psm: psm, security: security, options: options)
        }
        return serving
    }
}
