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
    associatedtype UUIDValue: CoreBluetoothUUID
    var uuid: UUIDValue { get }
    /// The last value read: `Data`, `String` or `NSNumber` depending on the descriptor type.
    var value: Any? { get }
}

/// Shaped like `CBCharacteristic`.
public protocol CoreBluetoothCharacteristic: AnyObject {
    associatedtype UUIDValue: CoreBluetoothUUID
    associatedtype Descriptor: CoreBluetoothDescriptor where Descriptor.UUIDValue == UUIDValue
    /// `CBCharacteristicProperties`: its low 8 bits are the ATT properties byte.
    associatedtype Properties: RawRepresentable where Properties.RawValue == UInt
    var uuid: UUIDValue { get }
    var properties: Properties { get }
    /// The last value read or notified.
    var value: Data? { get }
    var descriptors: [Descriptor]? { get }
    var isNotifying: Bool { get }
}

/// Shaped like `CBService`.
public protocol CoreBluetoothService: AnyObject {
    associatedtype UUIDValue: CoreBluetoothUUID
    associatedtype Characteristic: CoreBluetoothCharacteristic where Characteristic.UUIDValue == UUIDValue
    var uuid: UUIDValue { get }
    var isPrimary: Bool { get }
    var characteristics: [Characteristic]? { get }
}

/// Shaped like `CBPeripheral` (its delegate is set by the platform glue, not by the backend).
public protocol CoreBluetoothPeripheral: AnyObject {
    associatedtype UUIDValue: CoreBluetoothUUID
    associatedtype Service: CoreBluetoothService where Service.UUIDValue == UUIDValue
    /// `CBCharacteristicWriteType`: 0 with response, 1 without.
    associatedtype WriteType: RawRepresentable where WriteType.RawValue == Int
    /// `CBPeripheralState`: 0 disconnected, 1 connecting, 2 connected, 3 disconnecting.
    associatedtype ConnectionState: RawRepresentable where ConnectionState.RawValue == Int

    /// The per-phone identifier CoreBluetooth assigns to the device.
    var identifier: UUID { get }
    var name: String? { get }
    var state: ConnectionState { get }
    var services: [Service]? { get }
    var canSendWriteWithoutResponse: Bool { get }

    func discoverServices(_ serviceUUIDs: [UUIDValue]?)
    func discoverCharacteristics(_ characteristicUUIDs: [UUIDValue]?, for service: Service)
    func discoverDescriptors(for characteristic: Service.Characteristic)
    func readValue(for characteristic: Service.Characteristic)
    func readValue(for descriptor: Service.Characteristic.Descriptor)
    func writeValue(_ data: Data, for characteristic: Service.Characteristic, type: WriteType)
    func writeValue(_ data: Data, for descriptor: Service.Characteristic.Descriptor)
    func setNotifyValue(_ enabled: Bool, for characteristic: Service.Characteristic)
    func maximumWriteValueLength(for type: WriteType) -> Int
    func readRSSI()
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
    associatedtype Peripheral: CoreBluetoothPeripheral
    /// `CBManagerState`: 0 unknown, 1 resetting, 2 unsupported, 3 unauthorized, 4 off, 5 on.
    associatedtype State: RawRepresentable where State.RawValue == Int
    /// `CBManagerAuthorization`: 0 not determined, 1 restricted, 2 denied, 3 allowed always.
    associatedtype Authorization: RawRepresentable where Authorization.RawValue == Int

    /// Whether the app may use Bluetooth (`CBManager.authorization`, the class property: reading
    /// it needs no manager, so it never prompts the user).
    static var authorization: Authorization { get }

    var state: State { get }
    func scanForPeripherals(withServices serviceUUIDs: [Peripheral.UUIDValue]?, options: [String: Any]?)
    func stopScan()
    func connect(_ peripheral: Peripheral, options: [String: Any]?)
    func cancelPeripheralConnection(_ peripheral: Peripheral)
    func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [Peripheral]
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
    public var localName: String
    public var txPowerLevel: String
    public var serviceUUIDs: String
    public var serviceData: String
    public var manufacturerData: String
    public var overflowServiceUUIDs: String
    public var isConnectable: String
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
