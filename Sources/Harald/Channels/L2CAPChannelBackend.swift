/// A backend's end of one open connection-oriented channel (see ``L2CAPChannel``, which apps use).
///
/// Over HCI and in the simulator one element is one SDU, and credits go back to the peer as the
/// reader takes them; CoreBluetooth's streams hide SDU boundaries, so there an element is what one
/// read of the input stream returned.
public protocol L2CAPChannelBackend: Sendable {
    /// The PSM the channel was opened on.
    var psm: L2CAPPSM { get }
    /// Largest SDU this end takes; nil where the system does not say (CoreBluetooth).
    var mtu: Int? { get }
    /// Largest SDU the peer takes (what one ``send(_:)`` may carry); nil where the system does
    /// not say (CoreBluetooth, where any length may be written).
    var peerMTU: Int? { get }

    /// Sends one SDU; returns once it is handed to the link, waiting while the peer has given no
    /// credits. Throws ``BluetoothError/channelClosed(_:)`` once the channel is closed.
    func send(_ sdu: [UInt8]) async throws(BluetoothError)

    /// The next received SDU, waiting for one; nil once the channel is closed and everything
    /// received was read. Only one reader at a time.
    func receive() async throws(BluetoothError) -> [UInt8]?

    /// Why the channel closed, once it has.
    func closeReason() async -> L2CAPChannelCloseReason?

    /// Closes the channel (a Disconnection Request); does nothing once it is closed.
    func close() async
}

/// The channels a peripheral serves on one PSM, as a backend gives them.
public protocol L2CAPChannelServerBackend: Sendable {
    /// The PSM centrals open the channels on (the system's choice on CoreBluetooth).
    var psm: L2CAPPSM { get }
    /// Each channel a central opens, with the central; finishes when the server stops.
    func channels() -> AsyncStream<(CentralIdentifier, any L2CAPChannelBackend)>
    /// Stops serving the PSM (channels already open stay open).
    func stop() async
}
