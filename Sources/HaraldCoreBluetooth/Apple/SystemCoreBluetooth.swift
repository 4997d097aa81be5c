#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
import Foundation
import HaraldCodec
import HaraldCore

// Apple's classes conform to the shaped protocols as they are; this file adds nothing but the
// constants, the UUID factory and a delegate proxy that forwards every call unchanged.
// (CBManager's class property `authorization` is the shape's `authorization`.)

/// A Bluetooth UUID (16, 32 or 128 bits) as the backend names services, characteristics and
/// descriptors.
extension CBUUID: CoreBluetoothUUID {}
/// A remote GATT descriptor (such as a characteristic's User Description or its CCCD) as the
/// backend reads and writes it.
extension CBDescriptor: CoreBluetoothDescriptor {}
/// A remote GATT characteristic as the backend discovers, reads, writes and subscribes to it.
extension CBCharacteristic: CoreBluetoothCharacteristic {}
/// A remote GATT service as the backend discovers it.
extension CBService: CoreBluetoothService {}

/// A remote peripheral, the far end of a connection, on which the backend runs GATT procedures.
extension CBPeripheral: CoreBluetoothPeripheral {
    public typealias Service = CBService
    public typealias L2CAPChannel = CBL2CAPChannel
}

/// The device at the other end of an L2CAP channel.
extension CBPeer: CoreBluetoothPeer {}
/// An open L2CAP channel, whose streams the backend reads and writes on a thread of their own.
extension CBL2CAPChannel: CoreBluetoothL2CAPChannel {}

/// The system's central role: the scanner and connection maker the backend drives.
extension CBCentralManager: CoreBluetoothCentral {
    public typealias Peripheral = CBPeripheral

    public static var keys: CoreBluetoothKeys {
        CoreBluetoothKeys(
            localName: CBAdvertisementDataLocalNameKey, txPowerLevel: CBAdvertisementDataTxPowerLevelKey,
            serviceUUIDs: CBAdvertisementDataServiceUUIDsKey, serviceData: CBAdvertisementDataServiceDataKey,
            manufacturerData: CBAdvertisementDataManufacturerDataKey, overflowServiceUUIDs: CBAdvertisementDataOverflowServiceUUIDsKey,
            isConnectable: CBAdvertisementDataIsConnectable, solicitedServiceUUIDs: CBAdvertisementDataSolicitedServiceUUIDsKey,
            scanAllowDuplicates: CBCentralManagerScanOptionAllowDuplicatesKey,
            restoredPeripherals: CBCentralManagerRestoredStatePeripheralsKey,
            restoredScanServices: CBCentralManagerRestoredStateScanServicesKey,
            notifyOnConnection: CBConnectPeripheralOptionNotifyOnConnectionKey,
            notifyOnDisconnection: CBConnectPeripheralOptionNotifyOnDisconnectionKey,
            notifyOnNotification: CBConnectPeripheralOptionNotifyOnNotificationKey,
            enableAutoReconnect: autoReconnectKey,
            errorDomain: CBErrorDomain, attErrorDomain: CBATTErrorDomain)
    }

    /// `CBConnectPeripheralOptionEnableAutoReconnect` where the system has it.
    private static var autoReconnectKey: String? {
        if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) { return CBConnectPeripheralOptionEnableAutoReconnect }
        return nil
    }

    public static func makeUUID(_ uuid: BluetoothUUID) -> CBUUID { CBUUID(string: uuid.uuidString) }
}

/// The backend on the system's CoreBluetooth.
public typealias SystemCoreBluetoothBackend = CoreBluetoothBackend<CBCentralManager>

extension CoreBluetoothBackend where Central == CBCentralManager {
    /// A backend on a `CBCentralManager` whose delegate calls arrive on `queue`, where the
    /// backend also makes its calls. Without a restore identifier the manager is made on first
    /// use (see ``CoreBluetoothBackend``), which is when the system asks the user for permission;
    /// with one it is made now, as restoration needs (make this backend in
    /// `application(_:didFinishLaunchingWithOptions:)`).
    /// - Parameters:
    ///   - queue: the serial queue of CoreBluetooth's delegate calls and of the backend's calls
    ///     into CoreBluetooth.
    ///   - restoreIdentifier: set it to have the system relaunch the app for Bluetooth events and
    ///     hand back its connections (see ``restorations()``); needs the `bluetooth-central`
    ///     background mode.
    ///   - showPowerAlert: whether the system alerts the user when Bluetooth is off as the
    ///     manager is made (CoreBluetooth's default: yes).
    ///   - clock: the clock of the backend's timeouts (connection attempts, GATT operations).
    ///   - forwarding: an object of the app that gets, on `queue`, the delegate calls Harald does
    ///     not handle (L2CAP channel opens, ANCS authorization changes, connection events); kept
    ///     as long as the backend.
    public convenience init(
        queue: DispatchQueue = DispatchQueue(label: "Harald.CoreBluetooth"), restoreIdentifier: String? = nil,
        showPowerAlert: Bool = true, clock: any Clock<Duration> = ContinuousClock(), forwarding: (any CoreBluetoothForwardedEvents)? = nil
    ) {
        let proxy = CoreBluetoothDelegateProxy()
        proxy.forwarded = forwarding
        var options: [String: Any] = [CBCentralManagerOptionShowPowerAlertKey: NSNumber(value: showPowerAlert)]
        if let restoreIdentifier { options[CBCentralManagerOptionRestoreIdentifierKey] = restoreIdentifier }
        self.init(queue: queue, clock: clock) { backend in
            proxy.backend = backend
            return CBCentralManager(delegate: proxy, queue: queue, options: options)
        }
        state.withLock {
            $0.retainedObjects.append(proxy)
            // Channels the app opened itself through the CBPeripheral go to its object.
            if forwarding != nil {
                $0.unclaimedChannel = { [weak proxy] peripheral, channel, error in
                    proxy?.forwarded?.peripheral(peripheral, didOpen: channel, error: error)
                }
            }
        }
        if restoreIdentifier != nil { makeCentralNow() }
    }
}

/// The delegate calls of CoreBluetooth that Harald leaves to the app, forwarded unchanged on the
/// backend's queue (see `SystemCoreBluetoothBackend.init(queue:restoreIdentifier:showPowerAlert:clock:forwarding:)`).
/// Every method has an empty default. Use the objects only on that queue, and don't change a
/// peripheral's delegate: the backend relies on it.
public protocol CoreBluetoothForwardedEvents: AnyObject {
    /// An L2CAP channel the app opened itself with `CBPeripheral.openL2CAPChannel(_:)` is open
    /// (or failed): the answers to `PeripheralConnection.openL2CAPChannel(psm:options:timeout:)`
    /// stay with Harald. The callback does not say which PSM, so don't mix the two on one
    /// peripheral.
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
    /// The peripheral's authorization to receive Apple Notification Center Service data changed
    /// (iOS, watchOS).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral)
    /// A connection event the app registered for with `registerForConnectionEvents(options:)`
    /// happened (iOS, watchOS).
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral)
}

extension CoreBluetoothForwardedEvents {
    /// Does nothing.
    public func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {}
    /// Does nothing.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    public func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {}
    /// Does nothing.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    public func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) {}
}

/// Receives CoreBluetooth's delegate calls (on the backend's queue) and forwards each one unchanged
/// to the backend. It is the delegate of the central and of every peripheral the central reports
/// (set before the peripheral can report anything: on discovery, connection and restoration).
final class CoreBluetoothDelegateProxy: NSObject, CBCentralManagerDelegate, CBPeripheralDelegate {
    weak var backend: CoreBluetoothBackend<CBCentralManager>?
    /// The app's object for the calls Harald does not handle.
    var forwarded: (any CoreBluetoothForwardedEvents)?

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        backend?.centralManagerDidUpdateState(central)
    }

    func centralManager(_ central: CBCentralManager, willRestoreState dict: [String: Any]) {
        for peripheral in dict[CBCentralManagerRestoredStatePeripheralsKey] as? [CBPeripheral] ?? [] { peripheral.delegate = self }
        backend?.centralManager(central, willRestoreState: dict)
    }

    func centralManager(_ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any], rssi RSSI: NSNumber) {
        peripheral.delegate = self
        backend?.centralManager(central, didDiscover: peripheral, advertisementData: advertisementData, rssi: RSSI)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        peripheral.delegate = self
        backend?.centralManager(central, didConnect: peripheral)
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {
        backend?.centralManager(central, didFailToConnect: peripheral, error: error)
    }

    func centralManager(_ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?) {
        backend?.centralManager(central, didDisconnectPeripheral: peripheral, error: error)
    }

    // iOS 17 and macOS 14 call this one instead of the method above: it says whether the system
    // is reconnecting (automatic reconnection).
    @available(iOS 17.0, macOS 14.0, tvOS 17.0, watchOS 10.0, *)
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, timestamp: CFAbsoluteTime, isReconnecting: Bool,
        error: (any Error)?
    ) {
        backend?.centralManager(central, didDisconnectPeripheral: peripheral, timestamp: timestamp, isReconnecting: isReconnecting, error: error)
    }

    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, connectionEventDidOccur event: CBConnectionEvent, for peripheral: CBPeripheral) {
        forwarded?.centralManager(central, connectionEventDidOccur: event, for: peripheral)
    }

    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    func centralManager(_ central: CBCentralManager, didUpdateANCSAuthorizationFor peripheral: CBPeripheral) {
        forwarded?.centralManager(central, didUpdateANCSAuthorizationFor: peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {
        backend?.peripheral(peripheral, didOpen: channel, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {
        backend?.peripheral(peripheral, didDiscoverServices: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {
        backend?.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {
        backend?.peripheral(peripheral, didDiscoverDescriptorsFor: characteristic, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        backend?.peripheral(peripheral, didUpdateValueFor: characteristic, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {
        backend?.peripheral(peripheral, didWriteValueFor: characteristic, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) {
        backend?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {
        backend?.peripheral(peripheral, didUpdateValueFor: descriptor, error: error)
    }

    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {
        backend?.peripheral(peripheral, didWriteValueFor: descriptor, error: error)
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        backend?.peripheralIsReady(toSendWriteWithoutResponse: peripheral)
    }

    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        backend?.peripheral(peripheral, didModifyServices: invalidatedServices)
    }

    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {
        backend?.peripheral(peripheral, didReadRSSI: RSSI, error: error)
    }

    func peripheralDidUpdateName(_ peripheral: CBPeripheral) {
        backend?.peripheralDidUpdateName(peripheral)
    }
}
#endif
