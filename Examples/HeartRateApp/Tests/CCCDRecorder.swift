import Harald
import HaraldCodec
import HaraldCore

/// A connection that hands everything to `inner` and counts the CCCD writes made through it
/// (`setNotifications`), so a test can see whether the app wrote a CCCD the system had left on.
struct CCCDRecordingConnection: ConnectionBackend {
    let inner: any ConnectionBackend
    let writes = Locked<[(enabled: Bool, characteristic: BluetoothUUID)]>([])

    var peripheral: PeripheralIdentifier { inner.peripheral }
    var taskStarter: TaskStarter { inner.taskStarter }
    var serialDomain: (any Actor)? { inner.serialDomain }
    var hiddenServices: [BluetoothUUID: String] { inner.hiddenServices }
    var isReconnectingBySystem: Bool { inner.isReconnectingBySystem }

    func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) {
        writes.withLock { $0.append((enabled, characteristic.uuid)) }
        try await inner.setNotifications(enabled, for: characteristic, timeout: timeout)
    }

    func mtu() async -> Int { await inner.mtu() }
    func discoverServices(_ uuids: [BluetoothUUID]?, timeout: Duration) async throws(BluetoothError) -> [DiscoveredService] {
        try await inner.discoverServices(uuids, timeout: timeout)
    }
    func discoverCharacteristics(_ uuids: [BluetoothUUID]?, of service: DiscoveredService, timeout: Duration) async throws(BluetoothError)
        -> [DiscoveredCharacteristic]
    {
        try await inner.discoverCharacteristics(uuids, of: service, timeout: timeout)
    }
    func discoverDescriptors(of characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [DiscoveredDescriptor] {
        try await inner.discoverDescriptors(of: characteristic, timeout: timeout)
    }
    func discoverCharacteristics(ofAll services: [DiscoveredService], timeout: Duration) async throws(BluetoothError) -> [[DiscoveredCharacteristic]] {
        try await inner.discoverCharacteristics(ofAll: services, timeout: timeout)
    }
    func discoverDescriptors(ofAll characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError) -> [[DiscoveredDescriptor]] {
        try await inner.discoverDescriptors(ofAll: characteristics, timeout: timeout)
    }
    func read(_ characteristics: [DiscoveredCharacteristic], timeout: Duration) async throws(BluetoothError) -> [Result<[UInt8], BluetoothError>] {
        try await inner.read(characteristics, timeout: timeout)
    }
    func read(_ characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await inner.read(characteristic, timeout: timeout)
    }
    func write(_ value: [UInt8], to characteristic: DiscoveredCharacteristic, kind: WriteKind, timeout: Duration) async throws(BluetoothError) {
        try await inner.write(value, to: characteristic, kind: kind, timeout: timeout)
    }
    func readDescriptor(_ descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) -> [UInt8] {
        try await inner.readDescriptor(descriptor, timeout: timeout)
    }
    func writeDescriptor(_ value: [UInt8], to descriptor: DiscoveredDescriptor, timeout: Duration) async throws(BluetoothError) {
        try await inner.writeDescriptor(value, to: descriptor, timeout: timeout)
    }
    func valueUpdates(for characteristic: DiscoveredCharacteristic, buffering: UpdateBuffering) async -> ValueUpdates {
        await inner.valueUpdates(for: characteristic, buffering: buffering)
    }
    func maximumWriteLength(for kind: WriteKind) async -> Int { await inner.maximumWriteLength(for: kind) }
    func disconnection() async -> DisconnectReason { await inner.disconnection() }
    func disconnect() async { await inner.disconnect() }
    func systemReconnection() async -> (any ConnectionBackend)? { await inner.systemReconnection() }
    func serviceChanges() -> AsyncStream<ServiceChange> { inner.serviceChanges() }
    func readRSSI(timeout: Duration) async throws(BluetoothError) -> RSSI { try await inner.readRSSI(timeout: timeout) }
    func security() async -> LinkSecurity? { await inner.security() }
    func secure(timeout: Duration) async throws(BluetoothError) -> LinkSecurity { try await inner.secure(timeout: timeout) }
    func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity { try await inner.pair(timeout: timeout) }
    func protocolCost() async -> ProtocolCost? { await inner.protocolCost() }
}
