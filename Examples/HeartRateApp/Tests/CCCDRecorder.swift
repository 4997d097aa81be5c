import Harald
import HaraldCodec
import HaraldCore

/// A connection that hands everything to `forwarded` and counts the CCCD writes made through it
/// (`setNotifications`), so a test can see whether the app wrote a CCCD the system had left on.
struct CCCDRecordingConnection: ForwardingConnectionBackend {
    let forwarded: any ConnectionBackend
    let writes = Locked<[(enabled: Bool, characteristic: BluetoothUUID)]>([])

    func setNotifications(_ enabled: Bool, for characteristic: DiscoveredCharacteristic, timeout: Duration) async throws(BluetoothError) {
        writes.withLock { $0.append((enabled, characteristic.uuid)) }
        try await forwarded.setNotifications(enabled, for: characteristic, timeout: timeout)
    }
}
