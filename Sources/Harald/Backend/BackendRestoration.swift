import HaraldCodec

/// What the system handed back when it relaunched the app for Bluetooth (CoreBluetooth state
/// restoration, `centralManager(_:willRestoreState:)`): the connections it kept alive and the
/// scan that was running.
public struct BackendRestoration: Sendable {
    /// The peripherals the system kept connected (or was connecting) for the app.
    public var connections: [any ConnectionBackend]
    /// The services the restored scan was filtering on, when a scan was running.
    public var scanServices: [BluetoothUUID]?

    /// What the system restored: its connections, and the services scanned for (nil: no scan).
    public init(connections: [any ConnectionBackend], scanServices: [BluetoothUUID]?) {
        self.connections = connections
        self.scanServices = scanServices
    }
}
