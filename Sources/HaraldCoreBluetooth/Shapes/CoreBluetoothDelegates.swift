import Foundation
import HaraldCore

/// The `CBCentralManagerDelegate` calls the backend handles, over the shaped types. On Apple
/// platforms a small proxy forwards the real delegate calls; a fake calls these directly.
/// CoreBluetooth makes every call on the queue the central was created with, one at a time, and
/// the backend relies on that: it makes its own calls into CoreBluetooth on the same queue.
public protocol CoreBluetoothCentralDelegate<Central>: AnyObject {
    /// The central manager type that makes the calls.
    associatedtype Central: CoreBluetoothCentral
    /// The radio's state or the app's authorization changed.
    func centralManagerDidUpdateState(_ central: Central)
    /// The system relaunched the app and hands back what the central had: peripherals, the scan.
    func centralManager(_ central: Central, willRestoreState dict: [String: Any])
    /// An advertisement (or scan response) was received; `RSSI` is in dBm, 127 when unavailable.
    func centralManager(_ central: Central, didDiscover peripheral: Central.Peripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    /// A connection to `peripheral` is up.
    func centralManager(_ central: Central, didConnect peripheral: Central.Peripheral)
    /// A connection to `peripheral` could not be made.
    func centralManager(_ central: Central, didFailToConnect peripheral: Central.Peripheral, error: (any Error)?)
    /// The link to `peripheral` went down; `error` is nil when the app disconnected (systems
    /// before iOS 17 and macOS 14).
    func centralManager(_ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, error: (any Error)?)
    /// The link to `peripheral` went down, and whether the system is reconnecting it by itself
    /// (`isReconnecting`, for a connection made with automatic reconnection); `timestamp` is the
    /// system's absolute time of the loss, in seconds. iOS 17 and macOS 14 call this instead of
    /// the method without it.
    func centralManager(
        _ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, timestamp: Double, isReconnecting: Bool, error: (any Error)?)
}

/// The `CBPeripheralDelegate` calls the backend handles, over the shaped types.
public protocol CoreBluetoothPeripheralDelegate<Peripheral>: AnyObject {
    /// The peripheral type whose calls arrive.
    associatedtype Peripheral: CoreBluetoothPeripheral
    /// Service discovery finished (or failed with `error`).
    func peripheral(_ peripheral: Peripheral, didDiscoverServices error: (any Error)?)
    /// Characteristic discovery in `service` finished.
    func peripheral(_ peripheral: Peripheral, didDiscoverCharacteristicsFor service: Peripheral.Service, error: (any Error)?)
    /// Descriptor discovery of `characteristic` finished.
    func peripheral(_ peripheral: Peripheral, didDiscoverDescriptorsFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    /// A read of `characteristic` completed, or a notification or indication of it arrived.
    func peripheral(_ peripheral: Peripheral, didUpdateValueFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    /// A write with response to `characteristic` completed.
    func peripheral(_ peripheral: Peripheral, didWriteValueFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    /// Notifications or indications of `characteristic` were turned on or off.
    func peripheral(_ peripheral: Peripheral, didUpdateNotificationStateFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    /// A read of `descriptor` completed.
    func peripheral(_ peripheral: Peripheral, didUpdateValueFor descriptor: Peripheral.Service.Characteristic.Descriptor, error: (any Error)?)
    /// A write to `descriptor` completed.
    func peripheral(_ peripheral: Peripheral, didWriteValueFor descriptor: Peripheral.Service.Characteristic.Descriptor, error: (any Error)?)
    /// The system's queue for writes without response has room again.
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: Peripheral)
    /// The peripheral's GATT database changed (Service Changed): `invalidatedServices` are gone.
    func peripheral(_ peripheral: Peripheral, didModifyServices invalidatedServices: [Peripheral.Service])
    /// An RSSI read completed; `RSSI` is in dBm.
    func peripheral(_ peripheral: Peripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?)
    /// The peripheral's GAP Device Name changed.
    func peripheralDidUpdateName(_ peripheral: Peripheral)
    /// An `openL2CAPChannel(_:)` finished: the channel, or the error (the call names no PSM).
    func peripheral(_ peripheral: Peripheral, didOpen channel: Peripheral.L2CAPChannel?, error: (any Error)?)
}
