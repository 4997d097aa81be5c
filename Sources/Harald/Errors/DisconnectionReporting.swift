/// An error that may mean "the connection went away", and why — so code that reconnects
/// (``Central/withReconnection(to:services:options:policy:connectTimeout:_:)``) recognises a lost link
/// behind a kit's own error type as well as behind ``BluetoothError``.
public protocol DisconnectionReporting: Error {
    /// Why the connection ended, when this error is a disconnection; nil otherwise.
    var disconnectReason: DisconnectReason? { get }
}

extension BluetoothError: DisconnectionReporting {
    public var disconnectReason: DisconnectReason? {
        if case let .disconnected(reason) = self { return reason }
        return nil
    }
}
