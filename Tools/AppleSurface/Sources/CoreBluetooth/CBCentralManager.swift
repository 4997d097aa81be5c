/// Scans for, connects to and keeps track of remote peripherals. Its delegate hears of each
/// event on the queue given at creation (the main queue when nil).
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
open class CBCentralManager: CBManager {
    /// Features a device may support (checked with `supports(_:)`).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    public struct Feature: OptionSet, Sendable {
        /// The bit pattern.
        public let rawValue: UInt
        /// Features from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Extended scanning and advertising (Bluetooth 5 advertising sets).
        public static let extendedScanAndConnect = Feature(rawValue: 1 << 0)
    }

    /// Receives the manager's events (held weakly).
    open weak var delegate: (any CBCentralManagerDelegate)?
    /// Whether a scan is running.
    @available(iOS 9.0, macOS 10.13, *)
    open var isScanning: Bool { surfaceOnly() }

    /// A manager without a delegate, reporting on the main queue.
    public convenience init() { surfaceOnly() }
    /// A manager reporting to `delegate` on `queue` (the main queue when nil).
    public convenience init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?) { surfaceOnly() }
    /// A manager reporting to `delegate` on `queue`, with the `CBCentralManagerOption…` options.
    @available(iOS 7.0, macOS 10.9, *)
    public init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        super.init(surfaceOnly: ())
    }

    /// Whether this device supports the features.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    open class func supports(_ features: CBCentralManager.Feature) -> Bool { surfaceOnly() }

    /// The peripherals the system knows by these identifiers (seen or connected before).
    @available(iOS 7.0, macOS 10.9, *)
    open func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [CBPeripheral] { surfaceOnly() }
    /// The peripherals connected to this device (by any app) that have one of these services.
    @available(iOS 7.0, macOS 10.9, *)
    open func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] { surfaceOnly() }
    /// Scans for peripherals advertising any of these services (all when nil), with the
    /// `CBCentralManagerScanOption…` options.
    open func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) { surfaceOnly() }
    /// Stops scanning.
    open func stopScan() { surfaceOnly() }
    /// Connects to a peripheral, with the `CBConnectPeripheralOption…` options; the attempt does
    /// not time out until cancelled.
    open func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) { surfaceOnly() }
    /// Cancels a pending connection, or drops the app's use of a connected peripheral.
    open func cancelPeripheralConnection(_ peripheral: CBPeripheral) { surfaceOnly() }
    /// Asks for connection events matching the options (`CBConnectionEventMatchingOption…`).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    open func registerForConnectionEvents(options: [CBConnectionEventMatchingOption: Any]? = nil) { surfaceOnly() }
}

/// A connection event a central manager reports when registered for it.
@available(iOS 13.0, watchOS 6.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public enum CBConnectionEvent: Int, Sendable {
    /// A matching peer disconnected.
    case peerDisconnected = 0
    /// A matching peer connected.
    case peerConnected = 1
}

/// A key of the options of `registerForConnectionEvents(options:)`.
@available(iOS 13.0, watchOS 6.0, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
public struct CBConnectionEventMatchingOption: Hashable, RawRepresentable, Sendable {
    /// The key's text.
    public let rawValue: String
    /// A key from its text.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Match peers that have one of these services (`[CBUUID]`).
    public static let serviceUUIDs = CBConnectionEventMatchingOption(rawValue: "kCBConnectionEventMatchingOptionServiceUUIDs")
    /// Match peers with these identifiers (`[UUID]`).
    public static let peripheralUUIDs = CBConnectionEventMatchingOption(rawValue: "kCBConnectionEventMatchingOptionPeripheralUUIDs")
}

/// The events of a central manager, delivered on its queue. Only the state update is required;
/// Apple declares the rest optional, and here each of those has a default that does nothing.
public protocol CBCentralManagerDelegate: NSObjectProtocol {
    /// The radio's state or the app's authorization changed (see `CBManager.state`). Required.
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    /// The system relaunched the app and hands back what the manager had: the
    /// `CBCentralManagerRestoredState…` keys.
    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any])
    /// An advertisement (merged with its scan response when scanning actively) was received;
    /// `RSSI` is in dBm (127 when unavailable); the data's keys are `CBAdvertisementData…Key`.
    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    /// A connection to the peripheral is up.
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    /// A connection to the peripheral could not be made.
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    /// The link to the peripheral is down; `error` is nil when the app cancelled it.
    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
    /// The link is down, and whether the system is reconnecting (auto-reconnect); when this is
    /// implemented, the method without timestamp is not called.
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime, isReconnecting: Bool,
        error: (any Error)?)
    /// A registered connection event happened.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
    /// The peripheral's ANCS authorization changed.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral)
}

extension CBCentralManagerDelegate {
    /// Does nothing (an optional method on Apple platforms).
    public func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {}
    /// Does nothing (an optional method on Apple platforms).
    public func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {}
    /// Does nothing (an optional method on Apple platforms).
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    /// Does nothing (an optional method on Apple platforms).
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime, isReconnecting: Bool,
        error: (any Error)?
    ) {}
    /// Does nothing (an optional method on Apple platforms).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    public func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) {}
    /// Does nothing (an optional method on Apple platforms).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    public func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {}
}

/// Seconds since 1 January 2001 (Core Foundation's time type, which Apple's Foundation exports
/// and Linux's does not).
public typealias CFAbsoluteTime = Double
