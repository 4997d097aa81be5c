import HaraldCore

/// The peripheral changed its GATT database while connected: a Service Changed indication
/// (ATT backends) or CoreBluetooth's `peripheral(_:didModifyServices:)`.
///
/// Everything discovered inside the change is stale: the connection forgets it, discovers it
/// again on next use, and ends subscriptions on it with ``BluetoothError/serviceChanged(_:)``.
public struct ServiceChange: Hashable, Sendable {
    /// The attribute handles the peripheral says changed, on backends that see handles; `nil`
    /// on CoreBluetooth. `0x0001…0xFFFF` means "everything".
    public var handles: ATTHandleRange?
    /// The services the backend knows were invalidated (their ``DiscoveredService/id``s).
    public var services: [AttributeID]

    /// A change covering `handles` (nil: the whole database) and the services it invalidated.
    public init(handles: ATTHandleRange?, services: [AttributeID] = []) {
        self.handles = handles
        self.services = services
    }

    /// True when `service` lies in the change: listed, or overlapping the changed handles.
    public func affects(_ service: DiscoveredService) -> Bool {
        if services.contains(service.id) { return true }
        guard let handles else { return false }
        guard let own = service.handles else { return true }
        return own.start <= handles.end && handles.start <= own.end
    }
}
