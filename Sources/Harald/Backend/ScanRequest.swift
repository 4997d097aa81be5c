import HaraldCodec
import HaraldCore

/// What to scan for and how.
///
/// On iOS a scan keeps running in the background only when it names `services`: a background
/// scan without service UUIDs reports nothing, the system merges duplicates whatever
/// ``duplicates`` says (each device is reported once per scan, or rarely), and active scanning
/// may be slowed down. A scan restored after the system relaunched the app
/// (``Central/restorations()``) names the services it was filtering on; scan again with them.
/// The HCI host and the simulator have no background rules.
public struct ScanRequest: Hashable, Sendable {
    /// What to do when the same device advertises again.
    public enum DuplicatePolicy: Hashable, Sendable {
        /// Report each device once per scan.
        case reportOnce
        /// Report every advertisement (for RSSI tracking or changing beacon data).
        case reportAll
        /// Report a device again only when its advertising data changed.
        case reportChanges
    }

    /// Only devices advertising at least one of these services; empty means any device.
    public var services: [BluetoothUUID]
    /// Only devices whose local name starts with this.
    public var namePrefix: String?
    /// Only advertisements at least this strong; an advertisement of unknown strength fails it.
    public var minimumRSSI: RSSI?
    /// Whether repeated advertisements of a device are reported, or only its first and changes.
    public var duplicates: DuplicatePolicy
    /// Active scanning asks for scan responses (names often live there).
    public var active: Bool
    /// How many reports wait for a slow loop before the oldest are dropped (and counted in
    /// ``AdvertisementScan/droppedCount``).
    public var bufferLimit: Int

    /// The default ``bufferLimit``: a few seconds of a busy room.
    public static let defaultBufferLimit = 256

    /// A request; by default every device, every advertisement, active scanning.
    public init(
        services: [BluetoothUUID] = [], namePrefix: String? = nil, minimumRSSI: RSSI? = nil,
        duplicates: DuplicatePolicy = .reportOnce, active: Bool = true, bufferLimit: Int = ScanRequest.defaultBufferLimit
    ) {
        self.bufferLimit = max(1, bufferLimit)
        self.services = services
        self.namePrefix = namePrefix
        self.minimumRSSI = minimumRSSI
        self.duplicates = duplicates
        self.active = active
    }

    /// True when `advertisement` passes the service, name and RSSI filters. Backends that cannot
    /// filter in the radio use this; the public API applies it again so every backend behaves the same.
    public func matches(_ advertisement: Advertisement) -> Bool {
        if !services.isEmpty && !advertisement.serviceUUIDs.contains(where: services.contains) { return false }
        if let namePrefix, !(advertisement.localName?.hasPrefix(namePrefix) ?? false) { return false }
        if let minimumRSSI, (advertisement.rssi.map { $0 < minimumRSSI } ?? true) { return false }
        return true
    }
}
