#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Foundation
import HaraldCodec
import HaraldCore

// The peripheral role on the system's CoreBluetooth: Apple's classes conform to the shaped
// protocols as they are; this file adds the factories for CBMutableService /
// CBMutableCharacteristic, the ATT result mapping, and a delegate proxy that forwards every call
// unchanged.

/// A central connected to the app's GATT server: it subscribes and sends ATT requests.
extension CBCentral: CoreBluetoothRemoteCentral {}
/// A service of the app's own GATT server, as the peripheral manager reports it once published.
extension CBService: CoreBluetoothLocalService {}

/// A characteristic of the app's own GATT server, as requests and subscriptions name it.
extension CBCharacteristic: CoreBluetoothLocalCharacteristic {
    public typealias LocalService = CBService
}

/// One ATT read or write a central sent to the app's GATT server.
extension CBATTRequest: CoreBluetoothATTRequest {}

/// The system's peripheral role: it publishes the app's GATT services, advertises them and
/// passes on what connected centrals ask of them.
extension CBPeripheralManager: CoreBluetoothPeripheralManager {
    public typealias UUIDValue = CBUUID
    public typealias Service = CBService
    public typealias Characteristic = CBCharacteristic
    public typealias MutableService = CBMutableService
    public typealias MutableCharacteristic = CBMutableCharacteristic
    public typealias RemoteCentral = CBCentral
    public typealias Request = CBATTRequest
    public typealias ATTResult = CBATTError.Code
    public typealias L2CAPChannel = CBL2CAPChannel

    public static var keys: CoreBluetoothKeys { CBCentralManager.keys }

    public static func makeUUID(_ uuid: BluetoothUUID) -> CBUUID { CBUUID(string: uuid.uuidString) }

    public static func makeService(_ uuid: BluetoothUUID, isPrimary: Bool, characteristics: [CBMutableCharacteristic]) -> CBMutableService {
        let service = CBMutableService(type: makeUUID(uuid), primary: isPrimary)
        service.characteristics = characteristics
        return service
    }

    public static func makeCharacteristic(_ spec: CoreBluetoothCharacteristicSpec) -> CBMutableCharacteristic {
        let characteristic = CBMutableCharacteristic(
            type: makeUUID(spec.uuid), properties: CBCharacteristicProperties(rawValue: spec.properties), value: spec.value,
            permissions: CBAttributePermissions(rawValue: spec.permissions))
        // The two descriptors CoreBluetooth lets an app publish (it adds the CCCD itself).
        var descriptors: [CBMutableDescriptor] = []
        if let text = spec.userDescription {
            descriptors.append(CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicUserDescriptionString), value: text))
        }
        if let format = spec.presentationFormat {
            descriptors.append(CBMutableDescriptor(type: CBUUID(string: CBUUIDCharacteristicFormatString), value: format))
        }
        if !descriptors.isEmpty { characteristic.descriptors = descriptors }
        return characteristic
    }

    /// Apple imports `CBATTError.Code` from C, so any raw value (application errors 0x80–0x9F
    /// included) makes a code; where one does not, Unlikely Error stands in.
    public static func result(_ code: ATTErrorCode) -> CBATTError.Code {
        CBATTError.Code(rawValue: Int(code.rawValue)) ?? .unlikelyError
    }
}

/// The peripheral backend on the system's CoreBluetooth.
public typealias SystemCoreBluetoothPeripheralBackend = CoreBluetoothPeripheralBackend<CBPeripheralManager>

extension CoreBluetoothPeripheralBackend where Manager == CBPeripheralManager {
    /// A backend on a `CBPeripheralManager` whose delegate calls arrive on `queue`, where the
    /// backend also makes its calls. The manager is made on the first ``serve(_:)``, which is
    /// when the system asks the user for permission.
    /// - Parameters:
    ///   - queue: the serial queue of the peripheral manager's delegate calls and of the
    ///     backend's calls into CoreBluetooth.
    ///   - showPowerAlert: whether the system alerts the user when Bluetooth is off as the
    ///     manager is made (CoreBluetooth's default: yes).
    ///   - clock: the clock of the backend's timeouts (waiting for room to send an update).
    public convenience init(
        queue: DispatchQueue = DispatchQueue(label: "Harald.CoreBluetooth.Peripheral"), showPowerAlert: Bool = true,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        let proxy = CoreBluetoothPeripheralManagerProxy()
        let options: [String: Any] = [CBPeripheralManagerOptionShowPowerAlertKey: NSNumber(value: showPowerAlert)]
        self.init(queue: queue, clock: clock) { backend in
            proxy.backend = backend
            return CBPeripheralManager(delegate: proxy, queue: queue, options: options)
        }
        state.withLock { $0.retainedObjects.append(proxy) }
    }
}

/// Receives the peripheral manager's delegate calls (on the backend's queue) and forwards each
/// one unchanged to the backend.
final class CoreBluetoothPeripheralManagerProxy: NSObject, CBPeripheralManagerDelegate {
    weak var backend: CoreBluetoothPeripheralBackend<CBPeripheralManager>?

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        backend?.peripheralManagerDidUpdateState(peripheral)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {
        backend?.peripheralManager(peripheral, didAdd: service, error: error)
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {
        backend?.peripheralManagerDidStartAdvertising(peripheral, error: error)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {
        backend?.peripheralManager(peripheral, central: central, didSubscribeTo: characteristic)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {
        backend?.peripheralManager(peripheral, central: central, didUnsubscribeFrom: characteristic)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        backend?.peripheralManager(peripheral, didReceiveRead: request)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        backend?.peripheralManager(peripheral, didReceiveWrite: requests)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        backend?.peripheralManagerIsReady(toUpdateSubscribers: peripheral)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        backend?.peripheralManager(peripheral, didPublishL2CAPChannel: PSM, error: error)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {
        backend?.peripheralManager(peripheral, didUnpublishL2CAPChannel: PSM, error: error)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        backend?.peripheralManager(peripheral, didOpen: channel, error: error)
    }
}
#endif
