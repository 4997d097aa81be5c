import Foundation
import HaraldCodec

// The CoreBluetooth classes the backend drives, as protocols with Apple's member names and
// signatures. On Apple platforms `CBCentralManager`, `CBPeripheral`, `CBService`,
// `CBCharacteristic`, `CBDescriptor` and `CBUUID` conform as they are (see
// Apple/SystemCoreBluetooth.swift); elsewhere a fake conforms and drives the same delegate calls.
// Apple's enums and option sets appear as associated types constrained only by their raw values,
// which Apple documents and the backend maps (`CBManagerState`, `CBPeripheralState`,
// `CBCharacteristicWriteType`, `CBCharacteristicProperties`).

/// Shaped like `CBUUID`: a 16-, 32- or 128-bit UUID.
public protocol CoreBluetoothUUID: AnyObject {
    /// `180D` for SIG UUIDs, the 36-character form otherwise.
    var uuidString: String { get }
}

/// Shaped like `CBDescriptor`.
public protocol CoreBluetoothDescriptor: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The descriptor's type, such as 0x2902 (CCCD) or 0x2901 (User Description).
    var uuid: UUIDValue { get }
    /// The last value read: `Data`, `String` or `NSNumber` depending on the descriptor type.
    var value: Any? { get }
}

/// Shaped like `CBCharacteristic`.
public protocol CoreBluetoothCharacteristic: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The descriptor type (`CBDescriptor`).
    associatedtype Descriptor: CoreBluetoothDescriptor where Descriptor.UUIDValue == UUIDValue
    /// `CBCharacteristicProperties`: its low 8 bits are the ATT properties byte.
    associatedtype Properties: RawRepresentable where Properties.RawValue == UInt
    /// The characteristic's type UUID.
    var uuid: UUIDValue { get }
    /// The characteristic's properties (read, write, notify, …), as the declaration lists them.
    var properties: Properties { get }
    /// The last value read or notified.
    var value: Data? { get }
    /// The descriptors found by the last descriptor discovery; nil before one.
    var descriptors: [Descriptor]? { get }
    /// Whether notifications or indications are on (the CCCD as the system last wrote it).
    var isNotifying: Bool { get }
}

/// Shaped like `CBService`.
public protocol CoreBluetoothService: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The characteristic type (`CBCharacteristic`).
    associatedtype Characteristic: CoreBluetoothCharacteristic where Characteristic.UUIDValue == UUIDValue
    /// The service's type UUID.
    var uuid: UUIDValue { get }
    /// Whether it is a primary service (else secondary, included by another).
    var isPrimary: Bool { get }
    /// The characteristics found by the last characteristic discovery; nil before one.
    var characteristics: [Characteristic]? { get }
}

/// Shaped like `CBPeripheral` (its delegate is set by the platform glue, not by the backend).
public protocol CoreBluetoothPeripheral: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The service type (`CBService`).
    associatedtype Service: CoreBluetoothService where Service.UUIDValue == UUIDValue
    /// `CBCharacteristicWriteType`: 0 with response, 1 without.
    associatedtype WriteType: RawRepresentable where WriteType.RawValue == Int
    /// `CBPeripheralState`: 0 disconnected, 1 connecting, 2 connected, 3 disconnecting.
    associatedtype ConnectionState: RawRepresentable where ConnectionState.RawValue == Int
    /// The L2CAP channel type (`CBL2CAPChannel`).
    associatedtype L2CAPChannel: CoreBluetoothL2CAPChannel

    /// The per-phone identifier CoreBluetooth assigns to the device.
    var identifier: UUID { get }
    /// The peripheral's GAP name, if the system knows it.
    var name: String? { get }
    /// Whether the link is down, being made, up or being closed.
    var state: ConnectionState { get }
    /// The services found by the last discovery; nil before one.
    var services: [Service]? { get }
    /// Whether the system's queue has room for another write without response.
    var canSendWriteWithoutResponse: Bool { get }

    /// Discovers primary services (only these UUIDs; all when nil).
    func discoverServices(_ serviceUUIDs: [UUIDValue]?)
    /// Discovers characteristics of `service` (only these UUIDs; all when nil).
    func discoverCharacteristics(_ characteristicUUIDs: [UUIDValue]?, for service: Service)
    /// Discovers the descriptors of `characteristic`.
    func discoverDescriptors(for characteristic: Service.Characteristic)
    /// Reads the characteristic's value (the system uses Read Blob for long values).
    func readValue(for characteristic: Service.Characteristic)
    /// Reads the descriptor's value.
    func readValue(for descriptor: Service.Characteristic.Descriptor)
    /// Writes the characteristic's value, with or without response.
    func writeValue(_ data: Data, for characteristic: Service.Characteristic, type: WriteType)
    /// Writes the descriptor's value (not the CCCD: use `setNotifyValue(_:for:)`).
    func writeValue(_ data: Data, for descriptor: Service.Characteristic.Descriptor)
    /// Turns notifications or indications of the characteristic on or off (writes its CCCD).
    func setNotifyValue(_ enabled: Bool, for characteristic: Service.Characteristic)
    /// The longest value one write of this type carries, in bytes (ATT_MTU − 3 without response).
    func maximumWriteValueLength(for type: WriteType) -> Int
    /// Reads the link's RSSI (the answer comes in `peripheral(_:didReadRSSI:error:)`).
    func readRSSI()
    /// Opens an L2CAP channel on `PSM` (the answer, which does not name the PSM, comes in
    /// `peripheral(_:didOpen:error:)`).
    func openL2CAPChannel(_ PSM: UInt16)
}

#if compiler(>=6.2)
/// The backend's concurrent code refers to the central's type from several threads; since Swift
/// 6.2 that needs the type itself (not its instances) to be Sendable, as every nonisolated class is.
public typealias CoreBluetoothMetatypeSendable = SendableMetatype
#else
public protocol CoreBluetoothMetatypeSendable {}
#endif

/// Shaped like `CBCentralManager`.
public protocol CoreBluetoothCentral: AnyObject, CoreBluetoothMetatypeSendable {
    /// The peripheral type it reports (`CBPeripheral`).
    associatedtype Peripheral: CoreBluetoothPeripheral
    /// `CBManagerState`: 0 unknown, 1 resetting, 2 unsupported, 3 unauthorized, 4 off, 5 on.
    associatedtype State: RawRepresentable where State.RawValue == Int
    /// `CBManagerAuthorization`: 0 not determined, 1 restricted, 2 denied, 3 allowed always.
    associatedtype Authorization: RawRepresentable where Authorization.RawValue == Int

    /// Whether the app may use Bluetooth (`CBManager.authorization`, the class property: reading
    /// it needs no manager, so it never prompts the user).
    static var authorization: Authorization { get }

    /// The radio's state (see `State`).
    var state: State { get }
    /// Starts scanning for advertisements of these services (all when nil).
    func scanForPeripherals(withServices serviceUUIDs: [Peripheral.UUIDValue]?, options: [String: Any]?)
    /// Stops scanning.
    func stopScan()
    /// Starts a connection; it does not time out (a pending connect) until cancelled.
    func connect(_ peripheral: Peripheral, options: [String: Any]?)
    /// Cancels a pending connect, or disconnects.
    func cancelPeripheralConnection(_ peripheral: Peripheral)
    /// The peripherals the system knows by these identifiers (seen or connected before).
    func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [Peripheral]
    /// The peripherals connected to this device, by any app, that have one of these services.
    func retrieveConnectedPeripherals(withServices serviceUUIDs: [Peripheral.UUIDValue]) -> [Peripheral]

    /// The dictionary keys and error domains of this CoreBluetooth.
    static var keys: CoreBluetoothKeys { get }
    /// A UUID object for `uuid` (`CBUUID(string:)`).
    static func makeUUID(_ uuid: BluetoothUUID) -> Peripheral.UUIDValue
}

/// The string constants CoreBluetooth uses as dictionary keys and error domains. On Apple
/// platforms these are the `CBAdvertisementData…Key` etc. constants; a fake may use any distinct
/// strings.
public struct CoreBluetoothKeys: Sendable {
    /// `CBAdvertisementDataLocalNameKey`: the advertised local name.
    public var localName: String
    /// `CBAdvertisementDataTxPowerLevelKey`: the advertised TX power, in dBm.
    public var txPowerLevel: String
    /// `CBAdvertisementDataServiceUUIDsKey`: the advertised service UUIDs.
    public var serviceUUIDs: String
    /// `CBAdvertisementDataServiceDataKey`: service data, by service UUID.
    public var serviceData: String
    /// `CBAdvertisementDataManufacturerDataKey`: manufacturer data, company identifier first.
    public var manufacturerData: String
    /// `CBAdvertisementDataOverflowServiceUUIDsKey`: UUIDs from an iOS app advertising in the background.
    public var overflowServiceUUIDs: String
    /// `CBAdvertisementDataIsConnectable`: whether the advertisement was connectable.
    public var isConnectable: String
    /// `CBAdvertisementDataSolicitedServiceUUIDsKey`: the services the advertiser asks for.
    public var solicitedServiceUUIDs: String
    /// `CBCentralManagerScanOptionAllowDuplicatesKey`.
    public var scanAllowDuplicates: String
    /// `CBCentralManagerRestoredStatePeripheralsKey`.
    public var restoredPeripherals: String
    /// `CBCentralManagerRestoredStateScanServicesKey`.
    public var restoredScanServices: String
    /// `CBConnectPeripheralOptionNotifyOnConnectionKey`.
    public var notifyOnConnection: String
    /// `CBConnectPeripheralOptionNotifyOnDisconnectionKey`.
    public var notifyOnDisconnection: String
    /// `CBConnectPeripheralOptionNotifyOnNotificationKey`.
    public var notifyOnNotification: String
    /// `CBConnectPeripheralOptionEnableAutoReconnect`; nil where the system lacks it (before
    /// iOS 17 and macOS 14), and the option is then left out.
    public var enableAutoReconnect: String?
    /// `CBErrorDomain`.
    public var errorDomain: String
    /// `CBATTErrorDomain`.
    public var attErrorDomain: String

    /// The keys, one per field.
    public init(
        localName: String, txPowerLevel: String, serviceUUIDs: String, serviceData: String, manufacturerData: String,
        overflowServiceUUIDs: String, isConnectable: String, solicitedServiceUUIDs: String, scanAllowDuplicates: String,
        restoredPeripherals: String, restoredScanServices: String, notifyOnConnection: String, notifyOnDisconnection: String,
        notifyOnNotification: String, enableAutoReconnect: String?, errorDomain: String, attErrorDomain: String
    ) {
        self.localName = localName
        self.txPowerLevel = txPowerLevel
        self.serviceUUIDs = serviceUUIDs
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.overflowServiceUUIDs = overflowServiceUUIDs
        self.isConnectable = isConnectable
        self.solicitedServiceUUIDs = solicitedServiceUUIDs
        self.scanAllowDuplicates = scanAllowDuplicates
        self.restoredPeripherals = restoredPeripherals
        self.restoredScanServices = restoredScanServices
        self.notifyOnConnection = notifyOnConnection
        self.notifyOnDisconnection = notifyOnDisconnection
        self.notifyOnNotification = notifyOnNotification
        self.enableAutoReconnect = enableAutoReconnect
        self.errorDomain = errorDomain
        self.attErrorDomain = attErrorDomain
    }
}

extension CoreBluetoothUUID {
    /// The UUID as Harald's value type.
    var bluetoothUUID: BluetoothUUID {
        BluetoothUUID(uuidString) ?? BluetoothUUID(high: 0, low: 0)
    }
}
