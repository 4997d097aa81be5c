import HaraldCodec
import HaraldCore

/// A connection that hands every call to another one, for a wrapper that changes only a few:
/// one that counts or logs what goes through, a test double, a backend adding a behaviour of its
/// own. Conform, name the connection in ``forwarded``, and implement only what differs.
public protocol ForwardingConnectionBackend: ConnectionBackend {
    /// The connection every call this type does not implement itself goes to.
    var forwarded: any ConnectionBackend { get }
}

extension ForwardingConnectionBackend {
    public var peripheral: PeripheralIdentifier { forwarded.peripheral }
    public var taskStarter: TaskStarter { forwarded.taskStarter }
    public var serialDomain: (any Actor)? { forwarded.serialDomain }
    public var hiddenServices: [BluetoothUUID: String] { forwarded.hiddenServices }
    public var isReconnectingBySystem: Bool { forwarded.isReconnectingBySystem }
    public func serviceChanges() -> AsyncStream<ServiceChange> { forwarded.serviceChanges() }

    nonisolated(nonsending) public func mtu() async -> Int { await forwarded.mtu() }

    nonisolated(nonsending) public func openL2CAPChannel(psm: L2CAPPSM, options: L2CAPChannelOptions, timeout: Duration)
        async throws(BluetoothError) -> any L2CAPChannelBackend
    {
        try await forwarded.openL2CAPChannel(psm: psm, options: options, timeout: timeout)
    }

    nonisolated(nonsending) public func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws(BluetoothError)
        -> [DiscoveredService]
    {
        try await forwarded.discoverServices(uuids, timeout: timeout)
    }

    nonisolated(nonsending) public func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration)
        async throws(BluetoothError) -> [DiscoveredCharacteristic]
    {
        try await forwarded.discoverCharacteristics(uuids, of: service, timeout: timeout)
    }

    nonisolated(nonsending) public func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration)
        async throws(BluetoothError) -> [DiscoveredDescriptor]
    {
        try await forwarded.discoverDescriptors(of: characteristic, timeout: timeout)
    }

    nonisolated(nonsending) public func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration)
        async throws(BluetoothError) -> [[DiscoveredCharacteristic]]
    {
        try await forwarded.discoverCharacteristics(ofAll: services, timeout: timeout)
    }

    nonisolated(nonsending) public func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration)
        async throws(BluetoothError) -> [[DiscoveredDescriptor]]
    {
        try await forwarded.discoverDescriptors(ofAll: characteristics, timeout: timeout)
    }

    nonisolated(nonsending) public func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError)
        -> [Result<[UInt8], BluetoothError>]
    {
        try await forwarded.read(characteristics, timeout: timeout)
    }

    nonisolated(nonsending) public func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await forwarded.read(characteristic, timeout: timeout)
    }

    nonisolated(nonsending) public func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration)
        async throws(BluetoothError)
    {
        try await forwarded.write(value, to: characteristic, kind: kind, timeout: timeout)
    }

    nonisolated(nonsending) public func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await forwarded.readDescriptor(descriptor, timeout: timeout)
    }

    nonisolated(nonsending) public func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration)
        async throws(BluetoothError)
    {
        try await forwarded.writeDescriptor(value, to: descriptor, timeout: timeout)
    }

    nonisolated(nonsending) public func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration)
        async throws(BluetoothError)
    {
        try await forwarded.setNotifications(enabled, for: characteristic, timeout: timeout)
    }

    nonisolated(nonsending) public func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates {
        await forwarded.valueUpdates(for: characteristic, buffering: buffering)
    }

    nonisolated(nonsending) public func maximumWriteLength(for kind: WriteKind) async -> Int { await forwarded.maximumWriteLength(for: kind) }
    nonisolated(nonsending) public func disconnection() async -> DisconnectReason { await forwarded.disconnection() }
    nonisolated(nonsending) public func disconnect() async { await forwarded.disconnect() }
    nonisolated(nonsending) public func systemReconnection() async -> (any ConnectionBackend)? { await forwarded.systemReconnection() }

    nonisolated(nonsending) public func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI {
        try await forwarded.readRSSI(timeout: timeout)
    }

    nonisolated(nonsending) public func security() async -> LinkSecurity? { await forwarded.security() }

    nonisolated(nonsending) public func secure(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await forwarded.secure(timeout: timeout)
    }

    nonisolated(nonsending) public func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await forwarded.pair(timeout: timeout)
    }

    nonisolated(nonsending) public func protocolCost() async -> ProtocolCost? { await forwarded.protocolCost() }
}
