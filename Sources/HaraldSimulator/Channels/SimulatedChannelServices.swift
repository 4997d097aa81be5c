import Harald
import HaraldATT
import HaraldCore
import HaraldL2CAP

/// The connection-oriented channels one simulated device serves, shared by all its links: SPSMs
/// added by a served definition (``ServedPeripheral/serveL2CAPChannels(psm:security:options:announcingIn:)``)
/// or declared by a virtual device (``VirtualChannelService``). Each link's peripheral endpoint
/// asks it who serves an SPSM and whether the link's security is enough, as the device's GATT
/// server decides for an attribute.
final class SimulatedChannelServices: Sendable {
    /// One served SPSM.
    struct Service: Sendable {
        let server: CreditBasedChannels.Server
        let requirement: GATTSecurityRequirement
        /// Takes each channel a central opens on it.
        let deliver: @Sendable (CentralIdentifier, SimulatedChannel) -> Void
    }

    private struct Attached {
        weak var endpoint: SimulatedChannelEndpoint?
    }

    private struct State {
        var services: [UInt16: Service] = [:]
        var endpoints: [Attached] = []
    }
    private let state = Locked(State())

    /// Serves this device's SPSMs on a new link: `endpoint` is the device's end of it, `server`
    /// and `connection` tell the link's security.
    func attach(_ endpoint: SimulatedChannelEndpoint, server: GATTServer, connection: GATTConnectionID) async {
        let servers = state.withLock { state in
            state.endpoints.removeAll { $0.endpoint == nil }
            state.endpoints.append(Attached(endpoint: endpoint))
            return state.services.values.map(\.server)
        }
        let central = CentralIdentifier(connection)
        await endpoint.serve(
            servers,
            admission: { [weak self] request in
                guard let service = self?.service(request.spsm) else { return .spsmNotSupported }
                let security = await server.security(for: connection) ?? .none
                guard let shortfall = service.requirement.refusal(for: security) else { return nil }
                return CreditBasedConnectionResult(rawValue: L2CAPChannelRefusal(securityShortfall: shortfall).rawValue)
            },
            incoming: { [weak self] channel in
                guard let service = self?.service(channel.info.spsm) else {
                    channel.closeInBackground()
                    return
                }
                service.deliver(central, channel)
            })
    }

    private func service(_ spsm: UInt16) -> Service? { state.withLock { $0.services[spsm] } }

    /// Serves `service` on every link, now and later. Throws ``BluetoothError/misuse(_:)`` when its
    /// SPSM is served already.
    func add(_ service: Service) async throws(BluetoothError) {
        let endpoints = try state.withLock { (state: inout State) throws(BluetoothError) -> [SimulatedChannelEndpoint] in
            guard state.services[service.server.spsm] == nil else { throw .misuse("PSM 0x\(Hex.word(service.server.spsm)) is served already") }
            state.services[service.server.spsm] = service
            return state.endpoints.compactMap(\.endpoint)
        }
        for endpoint in endpoints { await endpoint.register(service.server) }
    }

    /// Serves `service` from a device description (before any link exists).
    func addNow(_ service: Service) throws(BluetoothError) {
        try state.withLock { (state: inout State) throws(BluetoothError) in
            guard state.services[service.server.spsm] == nil else { throw .misuse("PSM 0x\(Hex.word(service.server.spsm)) is served twice") }
            state.services[service.server.spsm] = service
        }
    }

    /// Stops serving `spsm` to new requests (channels open stay open).
    func remove(_ spsm: UInt16) { state.withLock { _ = $0.services.removeValue(forKey: spsm) } }

    /// The lowest dynamic SPSM not served (nil when all 128 are).
    func freeSPSM() -> UInt16? {
        state.withLock { state in (UInt16(0x80)...0xFF).first { state.services[$0] == nil } }
    }

    /// Serves channels as a served definition asks: a channel server backend whose stream gets
    /// each channel with its central.
    func serve(psm: L2CAPPSM?, security: SecurityLevel, options: L2CAPChannelOptions) async throws(BluetoothError) -> any L2CAPChannelServerBackend {
        guard let spsm = psm?.rawValue ?? freeSPSM() else { throw .misuse("every dynamic PSM is served") }
        let (stream, continuation) = AsyncStream.makeStream(of: (CentralIdentifier, any L2CAPChannelBackend).self, bufferingPolicy: .bufferingOldest(16))
        try await add(
            Service(
                server: CreditBasedChannels.Server(spsm: spsm, limits: SimulatedChannel.limits(options)),
                requirement: GATTSecurityRequirement(level: security),
                deliver: { central, channel in
                    if case .dropped = continuation.yield((central, channel)) { channel.closeInBackground() }
                }))
        return SimulatedChannelServer(psm: L2CAPPSM(spsm), stream: stream, continuation: continuation, services: self)
    }
}

/// A served definition's channels on one SPSM in the simulator.
final class SimulatedChannelServer: L2CAPChannelServerBackend {
    let psm: L2CAPPSM
    private let stream: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>
    private let continuation: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>.Continuation
    private weak let services: SimulatedChannelServices?

    init(
        psm: L2CAPPSM, stream: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>,
        continuation: AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>.Continuation, services: SimulatedChannelServices
    ) {
        self.psm = psm
        self.stream = stream
        self.continuation = continuation
        self.services = services
    }

    /// The channels centrals open; one consumer (the stream is made once).
    func channels() -> AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)> { stream }

    func stop() async {
        services?.remove(psm.rawValue)
        continuation.finish()
    }
}
