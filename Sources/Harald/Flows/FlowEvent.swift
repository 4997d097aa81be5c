import HaraldCodec

/// What happens around a flow, as one stream of high-level events instead of delegate callbacks.
public enum FlowEvent: Sendable {
    /// The radio is on (reported at the start of a flow when it already is).
    case poweredOn
    /// The radio went off, or is unavailable (`unauthorized`, `unsupported`).
    case poweredOff(RadioState)
    /// A scan started by the flow is running.
    case scanStarted
    /// The flow's scan stopped (asked to, or failed: then `error` says why).
    case scanStopped(error: BluetoothError?)
    /// The flow's scan heard a matching device.
    case discovered(Advertisement)
    /// A connection the flow asked for is up.
    case connected(PeripheralConnection)
    /// A connection attempt of the flow failed.
    case connectionFailed(PeripheralIdentifier, BluetoothError)
    /// One of the flow's connections ended; `reason` is nil when the flow closed it itself.
    case disconnected(PeripheralIdentifier, reason: DisconnectReason?)
    /// The services the flow asked to prepare are discovered: reads and writes can start.
    case ready(PeripheralConnection)
    /// A value arrived on a characteristic the flow subscribed to.
    case received(PeripheralIdentifier, characteristic: BluetoothUUID, value: [UInt8])
    /// An operation the flow started in the background failed.
    case failed(String, BluetoothError)
}
