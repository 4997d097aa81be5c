import Harald
import HaraldCore

/// The CoreBluetooth peripheral object behind a connection, for what Harald does not cover.
extension PeripheralConnection {
    /// Runs `body` on the CoreBluetooth backend's queue with this connection's peripheral
    /// object (`CBPeripheral` on Apple platforms: see `withCBPeripheral(_:)` there), for what
    /// Harald does not cover. Throws `BluetoothError.disconnected` once this handle or its
    /// link has ended, and `BluetoothError.unsupported` when the connection is not on a
    /// CoreBluetooth backend of `central`.
    ///
    /// The link stays Harald's: don't change the peripheral's delegate, disconnect it, or keep
    /// the object after `body` returns; use this handle for GATT, so the link's shared state
    /// (discovered attributes, subscriptions) stays right.
    public func withPeripheral<Central: CoreBluetoothCentral, T: Sendable>(
        on central: Central.Type, _ body: @escaping @Sendable (Central.Peripheral) throws -> T
    ) async throws(BluetoothError) -> T {
        try checkOpen()
        guard let connection = backend as? CoreBluetoothConnection<Central> else {
            throw .unsupported("the peripheral object of a connection that is not on CoreBluetooth")
        }
        return try await connection.withPeripheral(body)
    }
}
