import HaraldCodec

/// What the system handed back when it relaunched the app for Bluetooth (CoreBluetooth state
/// restoration, `centralManager(_:willRestoreState:)`): the connections it kept alive, those it
/// is still making, and the scan that was running.
public struct BackendRestoration: Sendable {
    /// The peripherals the system kept connected for the app.
    public var connections: [any ConnectionBackend]
    /// The peripherals the system is still connecting for the app (pending connects it kept):
    /// `connect(to:options:timeout:)` waits for such a connection and returns it.
    public var pendingConnections: [PeripheralIdentifier]
    /// For each restored connection, the characteristics whose notifications or indications
    /// were on (their CCCD is still written).
    public var notifying: [PeripheralIdentifier: [DiscoveredCharacteristic]]
    /// The services the restored scan was filtering on, when a scan was running.
    public var scanServices: [BluetoothUUID]?

    /// What the system restored: its connections, the connections still pending, the
    /// characteristics notifying on each connection, and the services scanned for (nil: no scan).
    public init(
        connections: [any ConnectionBackend], pendingConnections: [PeripheralIdentifier] = [],
        notifying: [PeripheralIdentifier: [DiscoveredCharacteristic]] = [:], scanServices: [BluetoothUUID]?
    ) {
        self.connections = connections
        self.pendingConnections = pendingConnections
        self.notifying = notifying
        self.scanServices = scanServices
    }
}
