/// How a connection is made and what the system does for it while the app is not running.
///
/// The `notifyOn…` options and ``enableAutoReconnect`` are CoreBluetooth's connect options: iOS
/// shows an alert for a suspended app when the connection comes up or goes down or a
/// notification arrives, and (iOS 17, macOS 14) reconnects by itself after a link loss. The HCI
/// host and the simulator have no system around the app and ignore them.
public struct ConnectionOptions: Hashable, Sendable {
    /// Alert the user when the connection comes up while the app is suspended
    /// (`CBConnectPeripheralOptionNotifyOnConnectionKey`).
    public var notifyOnConnection: Bool
    /// Alert the user when the connection goes down while the app is suspended
    /// (`CBConnectPeripheralOptionNotifyOnDisconnectionKey`).
    public var notifyOnDisconnection: Bool
    /// Alert the user for every notification received while the app is suspended
    /// (`CBConnectPeripheralOptionNotifyOnNotificationKey`).
    public var notifyOnNotification: Bool
    /// Let the system reconnect after the link is lost (`CBConnectPeripheralOptionEnableAutoReconnect`,
    /// iOS 17 / macOS 14 and later). The app still sees the disconnection, then a new connection
    /// through ``Central/restorations()``-style events of the backend.
    public var enableAutoReconnect: Bool

    /// Options; each is off by default and only CoreBluetooth acts on them.
    public init(
        notifyOnConnection: Bool = false, notifyOnDisconnection: Bool = false, notifyOnNotification: Bool = false,
        enableAutoReconnect: Bool = false
    ) {
        self.notifyOnConnection = notifyOnConnection
        self.notifyOnDisconnection = notifyOnDisconnection
        self.notifyOnNotification = notifyOnNotification
        self.enableAutoReconnect = enableAutoReconnect
    }

    /// No alerts, no automatic reconnection.
    public static let `default` = ConnectionOptions()
}
