import Foundation
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth

/// Stands in for `CBCentralManager`, with CoreBluetooth's rules: it is made by the backend on
/// first use and then reports its state (and a restoration, if one waits) on its queue; delegate
/// calls come on that queue; calls made off the queue, and commands given before power-on, are
/// recorded as misuse (the latter ignored, as CoreBluetooth does). What tests do as the system or
/// the peer runs on the queue too, so a test continues only once the backend has taken it in.
final class FakeCentral: CoreBluetoothCentral, @unchecked Sendable {
    // @unchecked Sendable: mutable state is guarded by `system.lock`; delegate methods are called
    // with the lock released, on `system.queue`.
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
        case retrieveConnected([BluetoothUUID])
    }

    static var keys: CoreBluetoothKeys { fakeKeys }
    static func makeUUID(_ uuid: BluetoothUUID) -> FakeUUID { FakeUUID(uuid) }

    /// `CBManager.authorization` is one value for the whole process; so is this.
    private static let authorizationValue = Locked(FakeAuthorization.allowedAlways)
    static var authorization: FakeAuthorization { authorizationValue.value }
    static func setAuthorization(_ value: FakeAuthorization) { authorizationValue.withLock { $0 = value } }

    let system = FakeSystem()
    var lock: NSLock { system.lock }
    var queue: DispatchQueue { system.queue }
    weak var backend: CoreBluetoothBackend<FakeCentral>?
    private var radio = FakeManagerState.unknown
    private var makeCount = 0
    private var pendingRestore: [String: Any]?
    /// The notification that relaunched the app: delivered right after the restoration.
    private var pendingWake: (peripheral: FakePeripheral, characteristic: BluetoothUUID, value: [UInt8])?
    private var known: [UUID: FakePeripheral] = [:]
    private var scanning: (services: [BluetoothUUID]?, allowDuplicates: Bool)?
    private var log: [Call] = []
    private var options: [UUID: [String: Any]] = [:]
    var connectBehaviour = ConnectBehaviour.accept
    /// Advertisements reported as soon as a scan starts (a peer that is always advertising).
    var advertisingOnScan: [(peripheral: FakePeripheral, data: [String: Any], rssi: Int)] = []
    /// Peripherals connected to the phone by other apps (for `retrieveConnectedPeripherals`).
    var connectedToSystem: [FakePeripheral] = []

    init() {}

    /// Called by the backend's factory: the central exists from now on. Like CoreBluetooth it
    /// reports a waiting restoration, then its state, on the queue.
    func made(by backend: CoreBluetoothBackend<FakeCentral>) {
        lock.withLock {
            self.backend = backend
            makeCount += 1
        }
        system.later { [self] in
            let (restore, wake) = lock.withLock {
                defer { (pendingRestore, pendingWake) = (nil, nil) }
                return (pendingRestore, pendingWake)
            }
            if let restore { backend.centralManager(self, willRestoreState: restore) }
            if let wake { wake.peripheral.notify(wake.value, on: wake.characteristic) }
            backend.centralManagerDidUpdateState(self)
        }
    }

    /// How many times the backend made the central (0 until its first use).
    var madeCount: Int { lock.withLock { makeCount } }

    /// Checks a command the backend gives: on the queue, and (for commands that need it) with the
    /// radio on. Returns false when CoreBluetooth would ignore it.
    private func accepts(_ call: String, needsPower: Bool = true) -> Bool {
        system.checkQueue(call)
        let on = lock.withLock { radio == .poweredOn }
        if needsPower && !on {
            system.record(.notPoweredOn(call))
            return false
        }
        return true
    }

    // MARK: CBCentralManager shape

    var state: FakeManagerState {
        system.checkQueue("CBCentralManager.state")
        return lock.withLock { radio }
    }

    func scanForPeripherals(withServices serviceUUIDs: [FakeUUID]?, options: [String: Any]?) {
        guard accepts("scanForPeripherals") else { return }
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
        guard accepts("stopScan") else { return }
        lock.withLock {
            scanning = nil
            log.append(.stopScan)
        }
    }

    func connect(_ peripheral: FakePeripheral, options connectOptions: [String: Any]?) {
        guard accepts("connect") else { return }
        let behaviour: ConnectBehaviour = lock.withLock {
            log.append(.connect(peripheral.identifier))
            options[peripheral.identifier] = connectOptions ?? [:]
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
        guard accepts("cancelPeripheralConnection") else { return }
        let wasUp: Bool = lock.withLock {
            log.append(.cancelConnection(peripheral.identifier))
            let wasUp = peripheral.connectionState != .disconnected
            peripheral.connectionState = .disconnected
            return wasUp
        }
        // CoreBluetooth confirms a cancelled connection (or attempt) with a nil-error disconnect,
        // and never reconnects one the app cancelled.
        if wasUp { backend?.centralManager(self, didDisconnectPeripheral: peripheral, timestamp: 0, isReconnecting: false, error: nil) }
    }

    func retrievePeripherals(withIdentifiers identifiers: [UUID]) -> [FakePeripheral] {
        guard accepts("retrievePeripherals") else { return [] }
        return lock.withLock {
            log.append(.retrieve(identifiers))
            return identifiers.compactMap { known[$0] }
        }
    }

    func retrieveConnectedPeripherals(withServices serviceUUIDs: [FakeUUID]) -> [FakePeripheral] {
        guard accepts("retrieveConnectedPeripherals") else { return [] }
        let wanted = serviceUUIDs.map(\.value)
        return lock.withLock {
            log.append(.retrieveConnected(wanted))
            return connectedToSystem.filter { peripheral in peripheral.database.contains { wanted.contains($0.uuid.value) } }
        }
    }

    // MARK: System and peer side, driven by tests (run on the queue)

    var calls: [Call] { lock.withLock { log } }
    var isScanning: Bool { lock.withLock { scanning != nil } }
    var misuse: [FakeMisuse] { system.misuse }

    /// The options of the last `connect` of `peripheral`, as booleans.
    func connectOptions(of peripheral: FakePeripheral) -> [String: Bool]? {
        lock.withLock { options[peripheral.identifier]?.compactMapValues { ($0 as? NSNumber)?.boolValue } }
    }

    /// A peripheral the system knows (reachable by `retrievePeripherals` and advertising).
    func add(_ peripheral: FakePeripheral) {
        peripheral.central = self
        lock.withLock { known[peripheral.identifier] = peripheral }
    }

    func makePeripheral(identifier: UUID = UUID(), name: String?, gatt: FakeGATT) -> FakePeripheral {
        let peripheral = FakePeripheral(identifier: identifier, name: name, gatt: gatt, system: system)
        add(peripheral)
        return peripheral
    }

    /// The radio changes state; once the central exists, the backend hears of it.
    func setRadio(_ state: FakeManagerState) {
        system.onQueue {
            lock.withLock { radio = state }
            backend?.centralManagerDidUpdateState(self)
        }
    }

    /// Reports an advertisement if a scan runs (and its service filter lets it through).
    func advertise(_ peripheral: FakePeripheral, data: [String: Any], rssi: Int) {
        system.onQueue {
            let services = (data[fakeKeys.serviceUUIDs] as? [FakeUUID])?.map(\.value) ?? []
            let reported: Bool = lock.withLock {
                guard let scanning else { return false }
                if let wanted = scanning.services { return services.contains(where: wanted.contains) }
                return true
            }
            if reported { backend?.centralManager(self, didDiscover: peripheral, advertisementData: data, rssi: NSNumber(value: rssi)) }
        }
    }

    func completeConnection(_ peripheral: FakePeripheral) {
        system.onQueue {
            lock.withLock { peripheral.connectionState = .connected }
            backend?.centralManager(self, didConnect: peripheral)
        }
    }

    func failConnection(_ peripheral: FakePeripheral, error: NSError) {
        system.onQueue {
            lock.withLock { peripheral.connectionState = .disconnected }
            backend?.centralManager(self, didFailToConnect: peripheral, error: error)
        }
    }

    /// The link drops (peer disconnected: `CBError.peripheralDisconnected`, 7, by default),
    /// reported as iOS 17 does: the system says it is reconnecting when the connection was made
    /// with the auto-reconnect option (and the app did not end it). `isReconnecting` overrides
    /// that; `legacy` reports the drop through the method without `isReconnecting` instead.
    func dropConnection(_ peripheral: FakePeripheral, error: NSError? = cbError(7), isReconnecting: Bool? = nil, legacy: Bool = false) {
        system.onQueue {
            let reconnecting =
                isReconnecting ?? (error != nil && connectOptions(of: peripheral)?[fakeKeys.enableAutoReconnect ?? ""] == true)
            lock.withLock {
                peripheral.connectionState = .disconnected
                for service in peripheral.database {
                    for characteristic in service.allCharacteristics { characteristic.notifying = false }
                }
            }
            peripheral.discardHeld()
            if reconnecting { lock.withLock { peripheral.connectionState = .connecting } }
            if legacy {
                backend?.centralManager(self, didDisconnectPeripheral: peripheral, error: error)
            } else {
                backend?.centralManager(self, didDisconnectPeripheral: peripheral, timestamp: 0, isReconnecting: reconnecting, error: error)
            }
        }
    }

    /// The system relaunched the app and hands back `peripherals` (with their connection state,
    /// discovered attributes and notifying characteristics as they are): reported when the
    /// backend makes the central, before its state, or at once if it exists already. `waking`
    /// is the notification that relaunched the app, delivered right after the restoration.
    func restore(
        _ peripherals: [FakePeripheral], scanServices: [BluetoothUUID]?,
        waking: (peripheral: FakePeripheral, characteristic: BluetoothUUID, value: [UInt8])? = nil
    ) {
        for peripheral in peripherals { add(peripheral) }
        var dictionary: [String: Any] = [fakeKeys.restoredPeripherals: peripherals]
        if let scanServices { dictionary[fakeKeys.restoredScanServices] = scanServices.map(FakeUUID.init) }
        let backend: CoreBluetoothBackend<FakeCentral>? = lock.withLock {
            if self.backend == nil { (pendingRestore, pendingWake) = (dictionary, waking) }
            return self.backend
        }
        guard let backend else { return }
        system.onQueue { backend.centralManager(self, willRestoreState: dictionary) }
    }
}

/// `CBManagerAuthorization`.
enum FakeAuthorization: Int, Sendable { case notDetermined = 0, restricted, denied, allowedAlways }
