import Foundation
import HaraldCodec
import HaraldCoreBluetooth

/// Stands in for `CBCentralManager`. Delegate calls go synchronously to the backend, from the
/// thread of whoever triggers them (a backend request or a test acting as the peer or the system).
final class FakeCentral: CoreBluetoothCentral, @unchecked Sendable {
    // @unchecked Sendable: mutable state is guarded by `lock`; delegate methods are called with
    // the lock released.
    typealias Peripheral = FakePeripheral

    enum ConnectBehaviour {
        /// `didConnect` at once.
        case accept
        /// Nothing until the test calls `completeConnection` or `failConnection`.
        case hold
        /// `didFailToConnect` at once with this error.
        case fail(NSError)
    }

    enum Call: Equatable {
        case scan([BluetoothUUID]?, allowDuplicates: Bool)
        case stopScan
        case connect(UUID)
        case cancelConnection(UUID)
        case retrieve([UUID])
    }

    static var keys: CoreBluetoothKeys { fakeKeys }
    static func makeUUID(_ uuid: BluetoothUUID) -> FakeUUID { FakeUUID(uuid) }

    let lock = NSLock()
    weak var backend: CoreBluetoothBackend<FakeCentral>?
    private var radio = FakeManagerState.unknown
    private var known: [UUID: FakePeripheral] = [:]
    private var scanning: (services: [BluetoothUUID]?, allowDuplicates: Bool)?
    private var log: [Call] = []
    var connectBehaviour = ConnectBehaviour.accept
    /// Advertisements reported as soon as a scan starts (a peer that is always advertising).
    var advertisingOnScan: [(peripheral: FakePeripheral, data: [String: Any], rssi: Int)] = []

    init() {}

    // MARK: CBCentralManager shape

    var state: FakeManagerState { lock.withLock { radio } }

    func scanForPeripherals(withServices serviceUUIDs: [FakeUUID]?, options: [String: Any]?) {
        let duplicates = (options?[fakeKeys.scanAllowDuplicates] as? NSNumber)?.boolValue ?? false
        lock.withLock {
            scanning = (serviceUUIDs?.map(\.value), duplicates)
            log.append(.scan(serviceUUIDs?.map(\.value), allowDuplicates: duplicates))
        }
        for advertisement in lock.withLock({ advertisingOnScan }) {
            advertise(advertisement.peripheral, data: advertisement.data, rssi: advertisement.rssi)
        }
    }

    func stopScan() {
        lock.withLock {
            scanning = nil
            log.append(.stopScan)
        }
    }

    func connect(_ peripheral: FakePeripheral, options: [String: Any]?) {
        let behaviour: ConnectBehaviour = lock.withLock {
            log.append(.connect(peripheral.identifier))
            peripheral.connectionState = .connecting
            return connectBehaviour
        }
        switch behaviour {
        case .accept: completeConnection(peripheral)
        case .hold: break
        case .fail(let error): failConnection(peripheral, error: error)
        }
    }

    func cancelPeripheralConnection(_ peripheral: FakePeripheral) {
        let wasUp: Bool = lock.withLock {
            log.append(.cancelConnection(peripheral.identifier))
            let wasUp = peripheral.connectionState != .disconnected
            peripheral.connectionState = .disconnected
            return wasUp
        }
        // CoreBluetooth confirms a cancelled connection (or attempt) with a nil-error disconnect.
        if wasUp { backend?.centralManager(self, didDisconnectPeripheral: peripheral, error: nil) }
    }

    func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [FakePeripheral] {
        lock.withLock {
            log.append(.retrieve(identifiers))
            return identifiers.compactMap { known[$0] }
        }
    }

    // MARK: System and peer side, driven by tests

    var calls: [Call] { lock.withLock { log } }
    var isScanning: Bool { lock.withLock { scanning != nil } }

    /// A peripheral the system knows (reachable by `retrievePeripherals` and advertising).
    func add(_ peripheral: FakePeripheral) {
        peripheral.central = self
        lock.withLock { known[peripheral.identifier] = peripheral }
    }

    func makePeripheral(name: String?, gatt: FakeGATT) -> FakePeripheral {
        let peripheral = FakePeripheral(name: name, gatt: gatt, lock: lock)
        add(peripheral)
        return peripheral
    }

    func setRadio(_ state: FakeManagerState) {
        lock.withLock { radio = state }
        backend?.centralManagerDidUpdateState(self)
    }

    /// Reports an advertisement if a scan runs (and its service filter lets it through).
    func advertise(_ peripheral: FakePeripheral, data: [String: Any], rssi: Int) {
        let services = (data[fakeKeys.serviceUUIDs] as? [FakeUUID])?.map(\.value) ?? []
        let reported: Bool = lock.withLock {
            guard let scanning else { return false }
            if let wanted = scanning.services { return services.contains(where: wanted.contains) }
            return true
        }
        if reported { backend?.centralManager(self, didDiscover: peripheral, advertisementData: data, rssi: NSNumber(value: rssi)) }
    }

    func completeConnection(_ peripheral: FakePeripheral) {
        lock.withLock { peripheral.connectionState = .connected }
        backend?.centralManager(self, didConnect: peripheral)
    }

    func failConnection(_ peripheral: FakePeripheral, error: NSError) {
        lock.withLock { peripheral.connectionState = .disconnected }
        backend?.centralManager(self, didFailToConnect: peripheral, error: error)
    }

    /// The link drops (peer disconnected: `CBError.peripheralDisconnected`, 7, by default).
    func dropConnection(_ peripheral: FakePeripheral, error: NSError? = cbError(7)) {
        lock.withLock {
            peripheral.connectionState = .disconnected
            for service in peripheral.database {
                for characteristic in service.allCharacteristics { characteristic.notifying = false }
            }
        }
        peripheral.discardHeld()
        backend?.centralManager(self, didDisconnectPeripheral: peripheral, error: error)
    }

    /// The system relaunched the app and hands back `peripherals` (with their connection state).
    func restore(_ peripherals: [FakePeripheral], scanServices: [BluetoothUUID]) {
        for peripheral in peripherals { add(peripheral) }
        backend?.centralManager(
            self,
            willRestoreState: [
                fakeKeys.restoredPeripherals: peripherals, fakeKeys.restoredScanServices: scanServices.map(FakeUUID.init),
            ])
    }
}
