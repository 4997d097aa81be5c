import Foundation
import Harald
import HaraldCodec

/// One connection made by ``CoreBluetoothBackend``: a handle on the peripheral's record for one
/// connection generation. Once that connection ends every operation fails with
/// ``BluetoothError/disconnected(_:)``, even after the peripheral connects again (ask the backend
/// for a new connection then). Copies of a handle are interchangeable.
public struct CoreBluetoothConnection<Central: CoreBluetoothCentral>: ConnectionBackend {
    let backend: CoreBluetoothBackend<Central>
    let identifier: UUID
    let generation: UInt64

    public var peripheral: PeripheralIdentifier { PeripheralIdentifier(rawValue: identifier.uuidString) }

    /// ATT_MTU: what CoreBluetooth allows in a write without response, plus the 3-byte ATT header.
    public func mtu() async -> Int {
        backend.maximumWriteLength(for: .withoutResponse, on: identifier) + 3
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
        backend.maximumWriteLength(for: kind, on: identifier)
    }

    public func disconnection() async -> DisconnectReason {
        await backend.disconnection(of: identifier, generation: generation)
    }

    public func disconnect() async {
        backend.disconnect(identifier, generation: generation)
    }
}
