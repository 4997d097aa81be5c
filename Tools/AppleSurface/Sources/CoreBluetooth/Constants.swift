// The dictionary keys of CoreBluetooth. Apple's values are runtime strings of its own; these are
// distinct placeholders (type-checking needs the names and types, never the values).

// Keys of the advertisement data a central reports with each discovery.

/// The advertised local name (`String`).
public let CBAdvertisementDataLocalNameKey: String = "kCBAdvDataLocalName"
/// The advertised TX power level, in dBm (`NSNumber`).
public let CBAdvertisementDataTxPowerLevelKey: String = "kCBAdvDataTxPowerLevel"
/// The advertised service UUIDs (`[CBUUID]`).
public let CBAdvertisementDataServiceUUIDsKey: String = "kCBAdvDataServiceUUIDs"
/// Service data by service UUID (`[CBUUID: Data]`).
public let CBAdvertisementDataServiceDataKey: String = "kCBAdvDataServiceData"
/// Manufacturer-specific data, company identifier first (`Data`).
public let CBAdvertisementDataManufacturerDataKey: String = "kCBAdvDataManufacturerData"
/// Service UUIDs found in the overflow area of an iOS app advertising in the background (`[CBUUID]`).
public let CBAdvertisementDataOverflowServiceUUIDsKey: String = "kCBAdvDataHashedServiceUUIDs"
/// Whether the advertisement was connectable (`NSNumber` holding a Bool).
@available(iOS 7.0, macOS 10.9, *)
public let CBAdvertisementDataIsConnectable: String = "kCBAdvDataIsConnectable"
/// The service UUIDs the advertiser solicits (`[CBUUID]`).
@available(iOS 7.0, macOS 10.9, *)
public let CBAdvertisementDataSolicitedServiceUUIDsKey: String = "kCBAdvDataSolicitedServiceUUIDs"

// Options of CBCentralManager's initializer.

/// Whether the system alerts the user when Bluetooth is off as the manager is made (`NSNumber`).
@available(iOS 7.0, macOS 10.9, *)
public let CBCentralManagerOptionShowPowerAlertKey: String = "kCBInitOptionShowPowerAlert"
/// The identifier under which the system restores the manager after relaunching the app (`String`).
@available(iOS 7.0, *)
public let CBCentralManagerOptionRestoreIdentifierKey: String = "kCBInitOptionRestoreIdentifier"

// Options of scanForPeripherals(withServices:options:).

/// Whether each advertisement of a peripheral is reported, not only the first (`NSNumber`).
public let CBCentralManagerScanOptionAllowDuplicatesKey: String = "kCBScanOptionAllowDuplicates"
/// Service UUIDs solicited during the scan (`[CBUUID]`).
@available(iOS 7.0, macOS 10.9, *)
public let CBCentralManagerScanOptionSolicitedServiceUUIDsKey: String = "kCBScanOptionSolicitedServiceUUIDs"

// Options of connect(_:options:).

/// Whether the system tells the user when the suspended app's peripheral connects (`NSNumber`).
@available(iOS 6.0, macOS 10.13, *)
public let CBConnectPeripheralOptionNotifyOnConnectionKey: String = "kCBConnectOptionNotifyOnConnection"
/// Whether the system tells the user when the suspended app's peripheral disconnects (`NSNumber`).
public let CBConnectPeripheralOptionNotifyOnDisconnectionKey: String = "kCBConnectOptionNotifyOnDisconnection"
/// Whether the system tells the user of each notification to the suspended app (`NSNumber`).
@available(iOS 6.0, macOS 10.13, *)
public let CBConnectPeripheralOptionNotifyOnNotificationKey: String = "kCBConnectOptionNotifyOnNotification"
/// A delay before the connection starts, in seconds (`NSNumber`).
@available(iOS 13.0, macOS 10.15, *)
public let CBConnectPeripheralOptionStartDelayKey: String = "kCBConnectOptionStartDelay"
/// Whether the system reconnects by itself when the link is lost (`NSNumber`).
@available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
public let CBConnectPeripheralOptionEnableAutoReconnect: String = "kCBConnectOptionEnableAutoReconnect"

// Keys of the state handed back by centralManager(_:willRestoreState:).

/// The peripherals connected or being connected when the app was ended (`[CBPeripheral]`).
@available(iOS 7.0, *)
public let CBCentralManagerRestoredStatePeripheralsKey: String = "kCBRestoredPeripherals"
/// The services of the scan that was running (`[CBUUID]`).
@available(iOS 7.0, *)
public let CBCentralManagerRestoredStateScanServicesKey: String = "kCBRestoredScanServices"
/// The options of the scan that was running (`[String: Any]`).
@available(iOS 7.0, *)
public let CBCentralManagerRestoredStateScanOptionsKey: String = "kCBRestoredScanOptions"

// Options of CBPeripheralManager's initializer and its restored state.

/// Whether the system alerts the user when Bluetooth is off as the manager is made (`NSNumber`).
@available(iOS 7.0, macOS 10.9, *)
public let CBPeripheralManagerOptionShowPowerAlertKey: String = "kCBInitOptionShowPowerAlert"
/// The identifier under which the system restores the manager after relaunching the app (`String`).
@available(iOS 7.0, *)
public let CBPeripheralManagerOptionRestoreIdentifierKey: String = "kCBInitOptionRestoreIdentifier"
/// The services the manager had published (`[CBMutableService]`).
@available(iOS 7.0, *)
public let CBPeripheralManagerRestoredStateServicesKey: String = "kCBRestoredServices"
/// The advertisement data it was advertising (`[String: Any]`).
@available(iOS 7.0, *)
public let CBPeripheralManagerRestoredStateAdvertisementDataKey: String = "kCBRestoredAdvertisement"
