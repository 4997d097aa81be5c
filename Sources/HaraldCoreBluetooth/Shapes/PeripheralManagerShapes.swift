import Foundation
import HaraldCodec
import HaraldCore

// The peripheral role's CoreBluetooth classes, as protocols with Apple's member names and
// signatures: `CBPeripheralManager`, `CBCentral`, `CBATTRequest`, and `CBService` /
// `CBCharacteristic` as the peripheral manager hands them back. On Apple platforms those classes
// conform as they are (Apple/SystemPeripheralManager.swift); elsewhere a fake conforms and makes
// the same delegate calls. `CBMutableService` and `CBMutableCharacteristic` are made through the
// manager type's factories, from a ``CoreBluetoothCharacteristicSpec``.

/// Shaped like `CBCentral`: a central connected to this app's peripheral manager.
public protocol CoreBluetoothRemoteCentral: AnyObject {
    /// The per-phone identifier CoreBluetooth assigns to the central.
    var identifier: UUID { get }
    /// The most a notification or indication to it can carry (its ATT_MTU − 3).
    var maximumUpdateValueLength: Int { get }
}

/// Shaped like `CBService`, as the peripheral manager reports a service it published.
public protocol CoreBluetoothLocalService: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The service's type UUID.
    var uuid: UUIDValue { get }
}

/// Shaped like `CBCharacteristic`, as the peripheral manager names one of its own in a request
/// or a subscription.
public protocol CoreBluetoothLocalCharacteristic: AnyObject {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// The service type it belongs to.
    associatedtype LocalService: CoreBluetoothLocalService where LocalService.UUIDValue == UUIDValue
    /// The characteristic's type UUID.
    var uuid: UUIDValue { get }
    /// The service it belongs to (CoreBluetooth holds it weakly).
    var service: LocalService? { get }
}

/// Shaped like `CBATTRequest`: one read, or one write of a batch, from a central.
public protocol CoreBluetoothATTRequest: AnyObject {
    /// The central type (`CBCentral`).
    associatedtype RemoteCentral: CoreBluetoothRemoteCentral
    /// The local characteristic type.
    associatedtype Characteristic: CoreBluetoothLocalCharacteristic
    /// The central that sent the request.
    var central: RemoteCentral { get }
    /// The characteristic it reads or writes.
    var characteristic: Characteristic { get }
    /// Where in the value the read starts or the write goes.
    var offset: Int { get }
    /// A write's bytes; set by the app to answer a read.
    var value: Data? { get set }
}

/// What the backend asks CoreBluetooth to publish for one characteristic
/// (`CBMutableCharacteristic(type:properties:value:permissions:)` and its descriptors).
public struct CoreBluetoothCharacteristicSpec: Hashable, Sendable {
    /// The characteristic's type UUID.
    public var uuid: BluetoothUUID
    /// `CBCharacteristicProperties` raw value: the ATT properties byte (broadcast and extended
    /// properties never set: CoreBluetooth refuses them on local characteristics), plus 0x100
    /// notify-encryption-required and 0x200 indicate-encryption-required.
    public var properties: UInt
    /// `CBAttributePermissions` raw value: 0x01 readable, 0x02 writeable, 0x04 read encryption
    /// required, 0x08 write encryption required.
    public var permissions: UInt
    /// The cached value (only ever set on read-only characteristics, as CoreBluetooth requires);
    /// nil: every read comes to the app.
    public var value: Data?
    /// A Characteristic User Description descriptor (0x2901) with this text.
    public var userDescription: String?
    /// A Characteristic Presentation Format descriptor (0x2904) with these 7 bytes.
    public var presentationFormat: Data?

    /// A spec from its parts (raw CoreBluetooth bit masks).
    public init(uuid: BluetoothUUID, properties: UInt, permissions: UInt, value: Data?, userDescription: String?, presentationFormat: Data? = nil) {
        self.uuid = uuid
        self.properties = properties
        self.permissions = permissions
        self.value = value
        self.userDescription = userDescription
        self.presentationFormat = presentationFormat
    }

    /// `CBAttributePermissions.readable`.
    public static var readable: UInt { 0x01 }
    /// `CBAttributePermissions.writeable`.
    public static var writeable: UInt { 0x02 }
    /// `CBAttributePermissions.readEncryptionRequired`: reads need an encrypted link.
    public static var readEncryptionRequired: UInt { 0x04 }
    /// `CBAttributePermissions.writeEncryptionRequired`: writes need an encrypted link.
    public static var writeEncryptionRequired: UInt { 0x08 }
    /// `CBCharacteristicProperties.notifyEncryptionRequired`: notifications only on an encrypted link.
    public static var notifyEncryptionRequired: UInt { 0x100 }
    /// `CBCharacteristicProperties.indicateEncryptionRequired`: indications only on an encrypted link.
    public static var indicateEncryptionRequired: UInt { 0x200 }
}

/// Shaped like `CBPeripheralManager`.
public protocol CoreBluetoothPeripheralManager: AnyObject, CoreBluetoothMetatypeSendable {
    /// The UUID type (`CBUUID`).
    associatedtype UUIDValue: CoreBluetoothUUID
    /// `CBService`, as `peripheralManager(_:didAdd:error:)` reports it.
    associatedtype Service: CoreBluetoothLocalService where Service.UUIDValue == UUIDValue
    /// `CBCharacteristic`, as requests and subscriptions name it.
    associatedtype Characteristic: CoreBluetoothLocalCharacteristic where Characteristic.UUIDValue == UUIDValue
    /// `CBMutableService`, `CBMutableCharacteristic`: what the app publishes.
    associatedtype MutableService: AnyObject
    /// `CBMutableCharacteristic`.
    associatedtype MutableCharacteristic: AnyObject
    /// `CBCentral`.
    associatedtype RemoteCentral: CoreBluetoothRemoteCentral
    /// `CBATTRequest`.
    associatedtype Request: CoreBluetoothATTRequest where Request.RemoteCentral == RemoteCentral, Request.Characteristic == Characteristic
    /// `CBManagerState`: 0 unknown, 1 resetting, 2 unsupported, 3 unauthorized, 4 off, 5 on.
    associatedtype State: RawRepresentable where State.RawValue == Int
    /// `CBATTError.Code`.
    associatedtype ATTResult
    /// `CBL2CAPChannel`.
    associatedtype L2CAPChannel: CoreBluetoothL2CAPChannel

    /// The radio's state (see `State`).
    var state: State { get }
    /// Whether the system is advertising for the app.
    var isAdvertising: Bool { get }
    /// Publishes a service in the local GATT database.
    func add(_ service: MutableService)
    /// Removes a published service.
    func remove(_ service: MutableService)
    /// Starts advertising (only the local name and service UUIDs are honoured).
    func startAdvertising(_ advertisementData: [String: Any]?)
    /// Stops advertising.
    func stopAdvertising()
    /// Answers an ATT read or write request with a result (success or an ATT error code).
    func respond(to request: Request, withResult result: ATTResult)
    /// Notifies or indicates a value to subscribed centrals (all when nil); false when the transmit
    /// queue is full (retry on `peripheralManagerIsReady(toUpdateSubscribers:)`).
    func updateValue(_ value: Data, for characteristic: MutableCharacteristic, onSubscribedCentrals centrals: [RemoteCentral]?) -> Bool
    /// Publishes an L2CAP channel on a PSM the system picks (reported by
    /// `peripheralManager(_:didPublishL2CAPChannel:error:)`), open to encrypted links only when
    /// `encryptionRequired`.
    func publishL2CAPChannel(withEncryption encryptionRequired: Bool)
    /// Stops accepting channels on `PSM`.
    func unpublishL2CAPChannel(_ PSM: UInt16)

    /// The dictionary keys and error domains of this CoreBluetooth.
    static var keys: CoreBluetoothKeys { get }
    /// `CBUUID(string:)`.
    static func makeUUID(_ uuid: BluetoothUUID) -> UUIDValue
    /// `CBMutableService(type:primary:)` with its characteristics set.
    static func makeService(_ uuid: BluetoothUUID, isPrimary: Bool, characteristics: [MutableCharacteristic]) -> MutableService
    /// `CBMutableCharacteristic(type:properties:value:permissions:)` with its descriptors set.
    static func makeCharacteristic(_ spec: CoreBluetoothCharacteristicSpec) -> MutableCharacteristic
    /// The `CBATTError.Code` for an ATT error code (0 is success); a code the platform cannot
    /// represent becomes Unlikely Error (0x0E).
    static func result(_ code: ATTErrorCode) -> ATTResult
}

/// The `CBPeripheralManagerDelegate` calls the peripheral backend handles, over the shaped types.
/// CoreBluetooth makes them on the manager's queue, one at a time; the backend makes its own
/// calls into CoreBluetooth on the same queue.
public protocol CoreBluetoothPeripheralManagerDelegate<Manager>: AnyObject {
    /// The peripheral manager type that makes the calls.
    associatedtype Manager: CoreBluetoothPeripheralManager
    /// The radio's state or the app's authorization changed.
    func peripheralManagerDidUpdateState(_ peripheral: Manager)
    /// Publishing `service` finished (or failed with `error`).
    func peripheralManager(_ peripheral: Manager, didAdd service: Manager.Service, error: (any Error)?)
    /// Advertising started (or failed with `error`).
    func peripheralManagerDidStartAdvertising(_ peripheral: Manager, error: (any Error)?)
    /// `central` turned notifications or indications of `characteristic` on.
    func peripheralManager(_ peripheral: Manager, central: Manager.RemoteCentral, didSubscribeTo characteristic: Manager.Characteristic)
    /// `central` turned notifications or indications of `characteristic` off.
    func peripheralManager(_ peripheral: Manager, central: Manager.RemoteCentral, didUnsubscribeFrom characteristic: Manager.Characteristic)
    /// A central sent an ATT read; answer with `respond(to:withResult:)`.
    func peripheralManager(_ peripheral: Manager, didReceiveRead request: Manager.Request)
    /// A central sent ATT writes (several for an executed prepared write); answer the first request.
    func peripheralManager(_ peripheral: Manager, didReceiveWrite requests: [Manager.Request])
    /// The transmit queue has room for more notifications.
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: Manager)
    /// `publishL2CAPChannel(withEncryption:)` finished: centrals open channels on `PSM` (or it
    /// failed with `error`).
    func peripheralManager(_ peripheral: Manager, didPublishL2CAPChannel PSM: UInt16, error: (any Error)?)
    /// `unpublishL2CAPChannel(_:)` finished.
    func peripheralManager(_ peripheral: Manager, didUnpublishL2CAPChannel PSM: UInt16, error: (any Error)?)
    /// A central opened a channel on a published PSM (or the open failed).
    func peripheralManager(_ peripheral: Manager, didOpen channel: Manager.L2CAPChannel?, error: (any Error)?)
}
