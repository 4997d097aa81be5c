import Foundation
import HaraldCodec
import HaraldCoreBluetooth

/// A request the fake peripheral received from the backend.
enum FakeRequest: Equatable, Sendable {
    case discoverServices([BluetoothUUID]?)
    case discoverCharacteristics([BluetoothUUID]?, service: BluetoothUUID)
    case discoverDescriptors(BluetoothUUID)
    case read(BluetoothUUID)
    case readDescriptor(BluetoothUUID)
    case write(BluetoothUUID, [UInt8], withResponse: Bool)
    case writeDescriptor(BluetoothUUID, [UInt8])
    case setNotify(Bool, BluetoothUUID)
    case readRSSI
    case openL2CAPChannel(UInt16)
}

/// How the fake peripheral answers an L2CAP channel open.
enum FakeChannelAnswer: Sendable {
    /// `didOpen` with a channel on the PSM at once.
    case open
    /// `didOpen` with a channel on the PSM at once, whose peer sends every byte back.
    case echo
    /// No answer (as CoreBluetooth sometimes does): the test answers with `deliverChannel`.
    case silent
    /// `didOpen` with no channel and this error.
    case fail(NSError)
}

/// Stands in for `CBPeripheral`: answers requests from its GATT database by calling the
/// backend's delegate methods synchronously (on the queue, where requests are made), or holds
/// them until the test releases them. Requests made while it is not connected are recorded as
/// misuse and ignored, as CoreBluetooth does.
final class FakePeripheral: CoreBluetoothPeripheral, @unchecked Sendable {
    // @unchecked Sendable: mutable state is guarded by `system.lock` (shared by every fake
    // object); delegate methods are called with the lock released.
    typealias Service = FakeService
    typealias L2CAPChannel = FakeL2CAPChannel

    let identifier: UUID
    let system: FakeSystem
    weak var central: FakeCentral?
    let database: [FakeService]

    var connectionState = FakePeripheralState.disconnected
    var shownServices: [FakeService]?
    var canSend = true
    /// Writes without response the peer still has room for (nil: unlimited).
    var writeCredits: Int?
    /// Writes without response that arrived while `canSendWriteWithoutResponse` was false: the
    /// ones a real stack would drop.
    private(set) var droppedWrites = 0
    var holding = false
    /// Answers held back, each handed the peripheral when it runs (one that captured it would
    /// keep a peripheral with requests held alive for good).
    private var held: [(FakePeripheral) -> Void] = []
    private(set) var requests: [FakeRequest] = []
    private var requestWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var heldWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Answer to a write on a characteristic: a notification on another one.
    var respond: [BluetoothUUID: (notify: BluetoothUUID, answer: @Sendable ([UInt8]) -> [UInt8])] = [:]
    var mtu = 23
    var currentName: String?
    /// What `readRSSI` reads.
    var rssi = -60
    /// How opens of L2CAP channels are answered, by PSM (`.open` when not set).
    var channelAnswers: [UInt16: FakeChannelAnswer] = [:]
    /// The channels handed to the backend, in order; guarded by `lock` (the queue writes them).
    private var openedChannels: [FakeL2CAPChannel] = []
    /// The channel handed to the backend last, read under the lock.
    var lastOpenedChannel: FakeL2CAPChannel? { lock.withLock { openedChannels.last } }
    /// Writes with response a characteristic refuses: the error for a value, or nil to accept it.
    var refuse: [BluetoothUUID: @Sendable ([UInt8]) -> NSError?] = [:]

    init(identifier: UUID = UUID(), name: String?, gatt: FakeGATT, system: FakeSystem) {
        self.identifier = identifier
        self.currentName = name
        self.system = system
        self.database = gatt.services.map { service in
            FakeService(
                service.uuid,
                characteristics: service.characteristics.map { characteristic in
                    FakeCharacteristic(
                        characteristic.uuid, properties: characteristic.properties, value: characteristic.value,
                        descriptors: characteristic.descriptors.map { FakeDescriptor($0.uuid, value: $0.value, system: system) }, system: system)
                }, system: system)
        }
    }

    var lock: NSLock { system.lock }

    // MARK: CBPeripheral shape

    var name: String? {
        system.checkQueue("CBPeripheral.name")
        return lock.withLock { currentName }
    }

    var state: FakePeripheralState {
        system.checkQueue("CBPeripheral.state")
        return lock.withLock { connectionState }
    }

    var services: [FakeService]? {
        system.checkQueue("CBPeripheral.services")
        return lock.withLock { shownServices }
    }

    var canSendWriteWithoutResponse: Bool {
        system.checkQueue("CBPeripheral.canSendWriteWithoutResponse")
        return lock.withLock { canSend }
    }

    func maximumWriteValueLength(for type: FakeWriteType) -> Int {
        system.checkQueue("CBPeripheral.maximumWriteValueLength")
        return type == .withResponse ? 512 : lock.withLock { mtu } - 3
    }

    func readRSSI() {
        receive(.readRSSI) { peripheral in
            let value = peripheral.lock.withLock { peripheral.rssi }
            peripheral.central?.backend?.peripheral(peripheral, didReadRSSI: NSNumber(value: value), error: nil)
        }
    }

    func openL2CAPChannel(_ PSM: UInt16) {
        receive(.openL2CAPChannel(PSM)) { peripheral in
            switch peripheral.lock.withLock({ peripheral.channelAnswers[PSM] ?? .open }) {
            case .open: peripheral.deliverChannel(psm: PSM)
            case .echo: peripheral.deliverChannel(psm: PSM).echoes()
            case .silent: break
            case .fail(let error): peripheral.central?.backend?.peripheral(peripheral, didOpen: nil, error: error)
            }
        }
    }

    /// `didOpen` with a new channel on `psm` (on the queue); returns it, for the test to play the peer.
    @discardableResult
    func deliverChannel(psm: UInt16, outputCapacity: Int = 512) -> FakeL2CAPChannel {
        let channel = FakeL2CAPChannel(psm: psm, peer: identifier, outputCapacity: outputCapacity)
        lock.withLock { openedChannels.append(channel) }
        system.onQueue { central?.backend?.peripheral(self, didOpen: channel, error: nil) }
        return channel
    }

    func discoverServices(_ serviceUUIDs: [FakeUUID]?) {
        let wanted = serviceUUIDs?.map(\.value)
        receive(.discoverServices(wanted)) { peripheral in
            peripheral.lock.withLock {
                let found = peripheral.database.filter { wanted?.contains($0.uuid.value) ?? true }
                let known = peripheral.shownServices ?? []
                peripheral.shownServices = known + found.filter { service in !known.contains { $0 === service } }
            }
            peripheral.central?.backend?.peripheral(peripheral, didDiscoverServices: nil)
        }
    }

    func discoverCharacteristics(_ characteristicUUIDs: [FakeUUID]?, for service: FakeService) {
        let wanted = characteristicUUIDs?.map(\.value)
        receive(.discoverCharacteristics(wanted, service: service.uuid.value)) { peripheral in
            peripheral.lock.withLock {
                let found = service.allCharacteristics.filter { wanted?.contains($0.uuid.value) ?? true }
                let known = service.shownCharacteristics ?? []
                service.shownCharacteristics = known + found.filter { item in !known.contains { $0 === item } }
            }
            peripheral.central?.backend?.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: nil)
        }
    }

    func discoverDescriptors(for characteristic: FakeCharacteristic) {
        receive(.discoverDescriptors(characteristic.uuid.value)) { peripheral in
            peripheral.lock.withLock { characteristic.shownDescriptors = characteristic.allDescriptors }
            peripheral.central?.backend?.peripheral(peripheral, didDiscoverDescriptorsFor: characteristic, error: nil)
        }
    }

    func readValue(for characteristic: FakeCharacteristic) {
        receive(.read(characteristic.uuid.value)) { peripheral in
            let error: NSError? = peripheral.lock.withLock {
                if let error = characteristic.readError { return error }
                characteristic.shownValue = Data(characteristic.storedValue)
                return nil
            }
            peripheral.central?.backend?.peripheral(peripheral, didUpdateValueFor: characteristic, error: error)
        }
    }

    func readValue(for descriptor: FakeDescriptor) {
        receive(.readDescriptor(descriptor.uuid.value)) { peripheral in
            peripheral.lock.withLock { descriptor.shownValue = descriptor.storedValue }
            peripheral.central?.backend?.peripheral(peripheral, didUpdateValueFor: descriptor, error: nil)
        }
    }

    func writeValue(_ data: Data, for characteristic: FakeCharacteristic, type: FakeWriteType) {
        let bytes = [UInt8](data)
        if type == .withoutResponse {
            guard accepts("writeValue") else { return }
            // Unacknowledged: taken (or dropped) at once, never held.
            let reply: (BluetoothUUID, @Sendable ([UInt8]) -> [UInt8])? = lock.withLock {
                requests.append(.write(characteristic.uuid.value, bytes, withResponse: false))
                if !canSend {
                    droppedWrites += 1
                    return nil
                }
                characteristic.storedValue = bytes
                if let credits = writeCredits {
                    writeCredits = credits - 1
                    if credits - 1 <= 0 { canSend = false }
                }
                return respond[characteristic.uuid.value]
            }
            wakeRequestWaiters()
            if let (target, answer) = reply { notify(answer(bytes), on: target) }
            return
        }
        receive(.write(characteristic.uuid.value, bytes, withResponse: true)) { peripheral in
            let (error, reply): (NSError?, (BluetoothUUID, @Sendable ([UInt8]) -> [UInt8])?) = peripheral.lock.withLock {
                if let error = characteristic.writeError ?? peripheral.refuse[characteristic.uuid.value]?(bytes) { return (error, nil) }
                characteristic.storedValue = bytes
                return (nil, peripheral.respond[characteristic.uuid.value])
            }
            peripheral.central?.backend?.peripheral(peripheral, didWriteValueFor: characteristic, error: error)
            if let (target, answer) = reply { peripheral.notify(answer(bytes), on: target) }
        }
    }

    func writeValue(_ data: Data, for descriptor: FakeDescriptor) {
        receive(.writeDescriptor(descriptor.uuid.value, [UInt8](data))) { peripheral in
            peripheral.lock.withLock { descriptor.storedValue = data }
            peripheral.central?.backend?.peripheral(peripheral, didWriteValueFor: descriptor, error: nil)
        }
    }

    func setNotifyValue(_ enabled: Bool, for characteristic: FakeCharacteristic) {
        receive(.setNotify(enabled, characteristic.uuid.value)) { peripheral in
            peripheral.lock.withLock { characteristic.notifying = enabled }
            peripheral.central?.backend?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: nil)
        }
    }

    // MARK: Peer side, driven by tests

    /// Sends a notification (if the central subscribed): the value shows in `value` and the
    /// backend hears `didUpdateValueFor`.
    func notify(_ value: [UInt8], on uuid: BluetoothUUID) {
        guard let characteristic = characteristic(uuid) else { return }
        notify(value, on: characteristic)
    }

    /// Sends a notification from `characteristic` (when several share a UUID).
    func notify(_ value: [UInt8], on characteristic: FakeCharacteristic) {
        system.onQueue {
            let subscribed: Bool = lock.withLock {
                characteristic.storedValue = value
                guard characteristic.notifying, connectionState == .connected else { return false }
                characteristic.shownValue = Data(value)
                return true
            }
            if subscribed { central?.backend?.peripheral(self, didUpdateValueFor: characteristic, error: nil) }
        }
    }

    /// Answers every held request, in order, and answers new ones at once again.
    func resumeAnswering() {
        system.onQueue {
            let answers: [(FakePeripheral) -> Void] = lock.withLock {
                holding = false
                defer { held = [] }
                return held
            }
            for answer in answers { answer(self) }
        }
    }

    /// The peer changes its database: `services` disappear until discovered again (Service Changed).
    func invalidate(_ uuids: [BluetoothUUID]) {
        system.onQueue {
            let gone: [FakeService] = lock.withLock {
                let gone = (shownServices ?? []).filter { uuids.contains($0.uuid.value) }
                shownServices = shownServices?.filter { !uuids.contains($0.uuid.value) }
                for service in gone { service.shownCharacteristics = nil }
                return gone
            }
            central?.backend?.peripheral(self, didModifyServices: gone)
        }
    }

    /// The peer's name changes (`peripheralDidUpdateName`).
    func rename(_ newName: String) {
        system.onQueue {
            lock.withLock { currentName = newName }
            central?.backend?.peripheralDidUpdateName(self)
        }
    }

    /// The state CoreBluetooth hands back at restoration: connected, with `services` discovered
    /// (all their characteristics and descriptors) and notifications on for `notifying`.
    func restoreConnected(discovered services: [BluetoothUUID], notifying: [BluetoothUUID]) {
        lock.withLock {
            connectionState = .connected
            shownServices = database.filter { services.contains($0.uuid.value) }
            for service in shownServices ?? [] {
                service.shownCharacteristics = service.allCharacteristics
                for characteristic in service.allCharacteristics {
                    characteristic.shownDescriptors = characteristic.allDescriptors
                    characteristic.notifying = notifying.contains(characteristic.uuid.value)
                }
            }
        }
    }

    /// The state CoreBluetooth hands back for a connect it is still making at restoration.
    func restoreConnecting() {
        lock.withLock { connectionState = .connecting }
    }

    /// Drops held requests unanswered (as a dying link does).
    func discardHeld() { lock.withLock { held = [] } }

    /// Gives the peer room for `count` more writes without response and reports readiness.
    func grantWriteCredits(_ count: Int) {
        system.onQueue {
            lock.withLock {
                writeCredits = count
                canSend = count > 0
            }
            central?.backend?.peripheralIsReady(toSendWriteWithoutResponse: self)
        }
    }

    func characteristic(_ uuid: BluetoothUUID) -> FakeCharacteristic? {
        database.lazy.flatMap(\.allCharacteristics).first { $0.uuid.value == uuid }
    }

    func value(of uuid: BluetoothUUID) -> [UInt8] {
        guard let characteristic = characteristic(uuid) else { return [] }
        return lock.withLock { characteristic.storedValue }
    }

    var received: [FakeRequest] { lock.withLock { requests } }
    var heldCount: Int { lock.withLock { held.count } }
    var dropped: Int { lock.withLock { droppedWrites } }

    /// Returns once `count` requests have been received in all.
    func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if requests.count >= count { return true }
                requestWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Returns once `count` requests are being held.
    func waitForHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if held.count >= count { return true }
                heldWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Checks a request the backend makes: on the queue, to a connected peripheral. Returns false
    /// when CoreBluetooth would ignore it.
    private func accepts(_ call: String) -> Bool {
        system.checkQueue(call)
        guard lock.withLock({ connectionState == .connected }) else {
            system.record(.notConnected(call))
            return false
        }
        return true
    }

    private func receive(_ request: FakeRequest, answer: @escaping (FakePeripheral) -> Void) {
        guard accepts("\(request)") else { return }
        let hold: Bool = lock.withLock {
            requests.append(request)
            if holding { held.append(answer) }
            return holding
        }
        wakeRequestWaiters()
        if !hold { answer(self) }
    }

    private func wakeRequestWaiters() {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            var ready: [CheckedContinuation<Void, Never>] = []
            requestWaiters.removeAll { waiter in
                guard requests.count >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            heldWaiters.removeAll { waiter in
                guard held.count >= waiter.count else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
