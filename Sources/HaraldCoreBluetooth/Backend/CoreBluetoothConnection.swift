import Foundation
import Harald
import HaraldCodec
import HaraldCore

/// One connection made by ``CoreBluetoothBackend``: a handle on the peripheral's record for one
/// connection generation. Once that connection ends every operation fails with
/// `BluetoothError/disconnected(_:)`, even after the peripheral connects again (ask the backend
/// for a new connection then). Copies of a handle are interchangeable.
public struct CoreBluetoothConnection<Central: CoreBluetoothCentral>: ConnectionBackend {
    let backend: CoreBluetoothBackend<Central>
    let identifier: UUID
    let generation: UInt64

    public var peripheral: PeripheralIdentifier { PeripheralIdentifier(uuid: identifier) }

    /// Generic Access (0x1800) and Generic Attribute (0x1801): CoreBluetooth never shows them to
    /// apps, so their characteristics (Device Name, Appearance, Service Changed…) are out of reach.
    public var hiddenServices: [BluetoothUUID: String] {
        [
            BluetoothUUID(0x1800):
                "Generic Access (0x1800) is hidden by CoreBluetooth: the system keeps it; the device's name is in its advertisement "
                + "(localName) and in CBPeripheral.name",
            BluetoothUUID(0x1801):
                "Generic Attribute (0x1801) is hidden by CoreBluetooth: the system keeps it and handles Service Changed itself "
                + "(changes reach PeripheralConnection.serviceChanges())",
        ]
    }

    /// ATT_MTU: what CoreBluetooth allows in a write without response, plus the 3-byte ATT header.
    public func mtu() async -> Int {
        await backend.maximumWriteLength(for: .withoutResponse, on: identifier) + 3
    }

    public func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws(BluetoothError) -> [DiscoveredService] {
        try await withBluetoothErrors {
            try await backend.discoverServices(uuids, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration) async throws(BluetoothError)
        -> [DiscoveredCharacteristic]
    {
        try await withBluetoothErrors {
            try await backend.discoverCharacteristics(uuids, of: service, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [DiscoveredDescriptor] {
        try await withBluetoothErrors {
            try await backend.discoverDescriptors(of: characteristic, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await withBluetoothErrors {
            try await backend.read(characteristic, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await backend.write(value, to: characteristic, kind: kind, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await withBluetoothErrors {
            try await backend.readDescriptor(descriptor, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await backend.writeDescriptor(value, to: descriptor, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) {
        try await withBluetoothErrors {
            try await backend.setNotifications(enabled, for: characteristic, timeout: timeout, on: identifier, generation: generation)
        }
    }

    public func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates {
        backend.valueUpdates(for: characteristic, buffering: buffering, on: identifier, generation: generation)
    }

    /// `maximumWriteValueLength(for:)`: MTU − 3 without response; with response CoreBluetooth
    /// performs long writes itself and reports up to 512.
    public func maximumWriteLength(for kind: WriteKind) async -> Int {
        await backend.maximumWriteLength(for: kind, on: identifier)
    }

    /// Reads the link's RSSI (`readRSSI()`, answered by `peripheral(_:didReadRSSI:error:)`).
    public func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI {
        try await withBluetoothErrors {
            try await backend.readRSSI(timeout: timeout, on: identifier, generation: generation)
        }
    }

    /// Changes of the peripheral's database (`peripheral(_:didModifyServices:)`), one stream per
    /// call, finishing when the connection ends. CoreBluetooth hides handles, so each change has
    /// `handles` nil and lists the invalidated services; value streams on their characteristics
    /// have ended with `BluetoothError/serviceChanged(_:)` before it arrives.
    public func serviceChanges() -> AsyncStream<ServiceChange> {
        backend.serviceChanges(on: identifier, generation: generation)
    }

    /// The peripheral's name each time it changes (`peripheralDidUpdateName(_:)`), one stream per
    /// call, finishing when the connection ends.
    public func nameUpdates() -> AsyncStream<String> {
        backend.nameUpdates(on: identifier, generation: generation)
    }

    /// Runs `body` on CoreBluetooth's queue with this connection's peripheral object, for what
    /// the backend does not cover. Throws `BluetoothError/disconnected(_:)` once the connection
    /// has ended. Don't keep the object or change its delegate: the backend relies on both.
    public func withPeripheral<T: Sendable>(_ body: @escaping @Sendable (Central.Peripheral) throws -> T) async throws(BluetoothError) -> T {
        try await backend.withPeripheral(of: identifier, generation: generation, body)
    }

    public func disconnection() async -> DisconnectReason {
        await backend.disconnection(of: identifier, generation: generation)
    }

    public func disconnect() async {
        backend.disconnect(identifier, generation: generation)
    }

    /// True once the system said, as this connection ended, that it is reconnecting the
    /// peripheral by itself (`didDisconnectPeripheral:timestamp:isReconnecting:error:`).
    public var isReconnectingBySystem: Bool {
        backend.isReconnectingBySystem(identifier, generation: generation)
    }

    /// The connection the system made again by itself after this one was lost, once it is up;
    /// nil when it is not reconnecting, or stopped.
    public func systemReconnection() async -> (any ConnectionBackend)? {
        guard let next = await backend.systemReconnection(of: identifier, generation: generation) else { return nil }
        return CoreBluetoothConnection(backend: backend, identifier: identifier, generation: next)
    }
}
