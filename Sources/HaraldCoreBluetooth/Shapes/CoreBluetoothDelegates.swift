import Foundation
import HaraldCore

/// The `CBCentralManagerDelegate` calls the backend handles, over the shaped types. On Apple
/// platforms a small proxy forwards the real delegate calls; a fake calls these directly.
/// CoreBluetooth makes every call on the queue the central was created with, one at a time, and
/// the backend relies on that: it makes its own calls into CoreBluetooth on the same queue.
public protocol CoreBluetoothCentralDelegate<Central>: AnyObject {
    associatedtype Central: CoreBluetoothCentral
    func centralManagerDidUpdateState(_ central: Central)
    func centralManager(_ central: Central, willRestoreState dict: [String: Any])
    func centralManager(_ central: Central, didDiscover peripheral: Central.Peripheral, advertisementData: [String: Any], rssi RSSI: NSNumber)
    func centralManager(_ central: Central, didConnect peripheral: Central.Peripheral)
    func centralManager(_ central: Central, didFailToConnect peripheral: Central.Peripheral, error: (any Error)?)
    func centralManager(_ central: Central, didDisconnectPeripheral peripheral: Central.Peripheral, error: (any Error)?)
}

/// The `CBPeripheralDelegate` calls the backend handles, over the shaped types.
public protocol CoreBluetoothPeripheralDelegate<Peripheral>: AnyObject {
    associatedtype Peripheral: CoreBluetoothPeripheral
    func peripheral(_ peripheral: Peripheral, didDiscoverServices error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didDiscoverCharacteristicsFor service: Peripheral.Service, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didDiscoverDescriptorsFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didUpdateValueFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didWriteValueFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didUpdateNotificationStateFor characteristic: Peripheral.Service.Characteristic, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didUpdateValueFor descriptor: Peripheral.Service.Characteristic.Descriptor, error: (any Error)?)
    func peripheral(_ peripheral: Peripheral, didWriteValueFor descriptor: Peripheral.Service.Characteristic.Descriptor, error: (any Error)?)
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: Peripheral)
    func peripheral(_ peripheral: Peripheral, didModifyServices invalidatedServices: [Peripheral.Service])
    func peripheral(_ peripheral: Peripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?)
    func peripheralDidUpdateName(_ peripheral: Peripheral)
}
