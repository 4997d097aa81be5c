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
#endif
