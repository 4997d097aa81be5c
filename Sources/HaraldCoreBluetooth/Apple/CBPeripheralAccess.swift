#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Foundation
import Harald

extension CoreBluetoothConnection where Central == CBCentralManager {
    /// Runs `body` on the backend's CoreBluetooth queue with this connection's `CBPeripheral`, for
    /// what Harald does not cover (L2CAP channels, ANCS authorization, …). Throws
    /// `BluetoothError.disconnected` once the connection has ended. Don't keep the peripheral or
    /// change its delegate: the backend relies on both.
    public func withCBPeripheral<T: Sendable>(_ body: @escaping @Sendable (CBPeripheral) throws -> T) async throws(BluetoothError) -> T {
        try await withPeripheral(body)
    }
}

/// The `CBPeripheral` behind a connection on the system's CoreBluetooth.
extension PeripheralConnection {
    /// Runs `body` on the CoreBluetooth queue with the `CBPeripheral` of this connection, for
    /// what Harald does not cover: opening an L2CAP channel (its `peripheral(_:didOpen:error:)`
    /// reaches the object given as `forwarding:` to `SystemCoreBluetoothBackend`), ANCS, …
    /// Throws `BluetoothError.disconnected` once this handle or its link has ended, and
    /// `BluetoothError.unsupported` when the connection is not on the system's CoreBluetooth.
    /// Don't keep the peripheral, change its delegate or disconnect it: the link stays Harald's.
    public func withCBPeripheral<T: Sendable>(_ body: @escaping @Sendable (CBPeripheral) throws -> T) async throws(BluetoothError) -> T {
        try await withPeripheral(on: CBCentralManager.self, body)
    }
}
#endif
