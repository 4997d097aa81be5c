/// The connection-oriented channels a served peripheral accepts on one PSM.
///
/// ```swift
/// let server = try await served.serveL2CAPChannels(security: .encrypted, announcingIn: transferService)
/// for await channel in server.channels {
///     Task { for try await sdu in channel.incoming { try await channel.send(sdu) } }  // echo
/// }
/// ```
public final class L2CAPChannelServer: Sendable {
    /// The PSM centrals open the channels on.
    public let psm: L2CAPPSM
    /// The backend's server.
    public let backend: any L2CAPChannelServerBackend

    public init(backend: any L2CAPChannelServerBackend) {
        self.backend = backend
        psm = backend.psm
    }

    /// Each channel a central opens, as it opens; ends when the server or the peripheral stops.
    public var channels: AsyncMapSequence<AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>, L2CAPChannel> {
        backend.channels().map { central, channel in L2CAPChannel(backend: channel, central: central) }
    }

    /// Stops accepting channels on the PSM; open channels stay open.
    public func stop() async { await backend.stop() }
}

extension ServedPeripheral {
    /// Serves connection-oriented L2CAP channels on `psm`, or on a PSM the backend picks when it
    /// is nil (CoreBluetooth always picks its own), to centrals whose link meets `security`.
    ///
    /// With `announcingIn`, the PSM is also stored as the value of the
    /// ``L2CAPPSM/appleChannelPSM`` characteristic of that service (a little-endian 16-bit
    /// number), which the definition must include as a readable characteristic: Apple's
    /// convention for telling centrals a PSM the system chose.
    public func serveL2CAPChannels(
        psm: L2CAPPSM? = nil, security: SecurityLevel = .none, options: L2CAPChannelOptions = L2CAPChannelOptions(),
        announcingIn service: BluetoothUUID? = nil
    ) async throws(BluetoothError) -> L2CAPChannelServer {
        if let psm, !psm.isValidOnLE { throw .misuse("\(psm) is outside the LE range 0x0001–0x00FF") }
        let server = try await backend.serveL2CAPChannels(psm: psm, security: security, options: options)
        if let service {
            let value = server.psm.rawValue
            try await backend.setValue([UInt8(value & 0xFF), UInt8(value >> 8)], characteristic: L2CAPPSM.appleChannelPSM, service: service)
        }
        return L2CAPChannelServer(backend: server)
    }
}
