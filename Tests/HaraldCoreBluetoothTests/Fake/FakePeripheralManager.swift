import Foundation
import HaraldCodec
import HaraldCore
import HaraldCoreBluetooth

// Stand-ins for CBPeripheralManager, CBCentral, CBATTRequest and the CBMutable* objects, with
// CoreBluetooth's rules for the peripheral role: calls on the manager's queue only, commands only
// while powered on, a cached value only on a read-only characteristic, no broadcast or extended
// properties, advertising keys limited to the local name and service UUIDs, and exactly one
// answer per read and per write batch (to the batch's first request). A broken rule is recorded
// as misuse, which `CoreBluetoothRules` turns into a test failure.

final class FakeRemoteCentral: CoreBluetoothRemoteCentral, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let identifier: UUID
    let maximumUpdateValueLength: Int
    init(maximumUpdateValueLength: Int = 182) {
        identifier = UUID()
        self.maximumUpdateValueLength = maximumUpdateValueLength
    }
}

final class FakeLocalService: CoreBluetoothLocalService, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let uuid: FakeUUID
    let isPrimary: Bool
    let characteristics: [FakeLocalCharacteristic]
    init(_ uuid: BluetoothUUID, isPrimary: Bool, characteristics: [FakeLocalCharacteristic]) {
        self.uuid = FakeUUID(uuid)
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }
}

final class FakeLocalCharacteristic: CoreBluetoothLocalCharacteristic, @unchecked Sendable {
    // @unchecked Sendable: `owner` is guarded by `lock`; the rest is immutable.
    let uuid: FakeUUID
    let spec: CoreBluetoothCharacteristicSpec
    private let lock = NSLock()
    private weak var owner: FakeLocalService?
    init(_ spec: CoreBluetoothCharacteristicSpec) {
        self.spec = spec
        uuid = FakeUUID(spec.uuid)
    }
    var service: FakeLocalService? {
        get { lock.withLock { owner } }
        set { lock.withLock { owner = newValue } }
    }
}

final class FakeATTRequest: CoreBluetoothATTRequest, @unchecked Sendable {
    // @unchecked Sendable: `storedValue` and `answer` are guarded by `lock`; the rest is immutable.
    let central: FakeRemoteCentral
    let characteristic: FakeLocalCharacteristic
    let offset: Int
    /// False for the second and later requests of a write batch (CoreBluetooth wants the answer on
    /// the first).
    let answersBatch: Bool
    private let lock = NSLock()
    private var storedValue: Data?
    private var answer: Int?

    init(central: FakeRemoteCentral, characteristic: FakeLocalCharacteristic, offset: Int, value: Data?, answersBatch: Bool = true) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.storedValue = value
        self.answersBatch = answersBatch
    }

    var value: Data? {
        get { lock.withLock { storedValue } }
        set { lock.withLock { storedValue = newValue } }
    }

    /// The ATT result the backend answered with (nil: not answered yet).
    var result: Int? { lock.withLock { answer } }

    /// Records the answer; false when the request was already answered.
    func record(_ result: Int) -> Bool {
        lock.withLock {
            guard answer == nil else { return false }
            answer = result
            return true
        }
    }
}

final class FakePeripheralManager: CoreBluetoothPeripheralManager, @unchecked Sendable {
    // @unchecked Sendable: mutable state is guarded by `system.lock`; delegate methods are called
    // with the lock released, on `system.queue`.
    typealias UUIDValue = FakeUUID
    typealias Service = FakeLocalService
    typealias Characteristic = FakeLocalCharacteristic
    typealias MutableService = FakeLocalService
    typealias MutableCharacteristic = FakeLocalCharacteristic
    typealias RemoteCentral = FakeRemoteCentral
    typealias Request = FakeATTRequest
    typealias State = FakeManagerState
    /// The raw `CBATTError.Code`.
    typealias ATTResult = Int
    typealias L2CAPChannel = FakeL2CAPChannel

    struct Update: Equatable {
        let value: [UInt8]
        let characteristic: BluetoothUUID
        /// nil: every subscribed central.
        let centrals: [UUID]?
    }

    static var keys: CoreBluetoothKeys { fakeKeys }
    static func makeUUID(_ uuid: BluetoothUUID) -> FakeUUID { FakeUUID(uuid) }
    static func makeService(_ uuid: BluetoothUUID, isPrimary: Bool, characteristics: [FakeLocalCharacteristic]) -> FakeLocalService {
        let service = FakeLocalService(uuid, isPrimary: isPrimary, characteristics: characteristics)
        for characteristic in characteristics { characteristic.service = service }
        return service
    }
    static func makeCharacteristic(_ spec: CoreBluetoothCharacteristicSpec) -> FakeLocalCharacteristic { FakeLocalCharacteristic(spec) }
    static func result(_ code: ATTErrorCode) -> Int { Int(code.rawValue) }

    let system = FakeSystem()
    var lock: NSLock { system.lock }
    var queue: DispatchQueue { system.queue }
    private weak var owner: CoreBluetoothPeripheralBackend<FakePeripheralManager>?
    private var radio = FakeManagerState.unknown
    private var makeCount = 0
    private var services: [FakeLocalService] = []
    private var advertising: [String: Any]?
    private var room = true
    private var sent: [Update] = []
    private var refusedUpdates = 0
    private var delivered: [FakeATTRequest] = []
    /// `didAdd` errors, by service UUID.
    var addErrors: [BluetoothUUID: NSError] = [:]
    /// The error the next `publishL2CAPChannel` fails with (nil: it succeeds).
    var publishError: NSError?
    /// The PSM the system picks for the next published channel.
    private var nextPSM: UInt16 = 0x0081
    /// Published PSMs, with whether they need encryption.
    private var publishedPSMs: [UInt16: Bool] = [:]
    private var unpublishedPSMs: [UInt16] = []

    init() {}

    /// A backend over a new fake, registered with `CoreBluetoothRules`.
    static func make(
        poweredOn: Bool = true, clock: any Clock<Duration> = ContinuousClock()
    ) -> (FakePeripheralManager, CoreBluetoothPeripheralBackend<FakePeripheralManager>) {
        let manager = FakePeripheralManager()
        if poweredOn { manager.lock.withLock { manager.radio = .poweredOn } }
        let backend = CoreBluetoothPeripheralBackend<FakePeripheralManager>(queue: manager.queue, clock: clock) { backend in
            manager.made(by: backend)
            return manager
        }
        CoreBluetoothRules.watch(manager)
        return (manager, backend)
    }

    private var backend: CoreBluetoothPeripheralBackend<FakePeripheralManager>? { lock.withLock { owner } }

    /// Called by the backend's factory: the manager exists from now on, and reports its state on
    /// the queue, as CoreBluetooth does.
    func made(by backend: CoreBluetoothPeripheralBackend<FakePeripheralManager>) {
        lock.withLock {
            owner = backend
            makeCount += 1
        }
        system.later { [self] in backend.peripheralManagerDidUpdateState(self) }
    }

    var madeCount: Int { lock.withLock { makeCount } }

    private func accepts(_ call: String) -> Bool {
        system.checkQueue(call)
        guard lock.withLock({ radio == .poweredOn }) else {
            system.record(.notPoweredOn(call))
            return false
        }
        return true
    }

    // MARK: CBPeripheralManager shape

    var state: FakeManagerState {
        system.checkQueue("CBPeripheralManager.state")
        return lock.withLock { radio }
    }

    var isAdvertising: Bool {
        system.checkQueue("CBPeripheralManager.isAdvertising")
        return lock.withLock { advertising != nil }
    }

    func add(_ service: FakeLocalService) {
        guard accepts("add") else { return }
        for characteristic in service.characteristics {
            let spec = characteristic.spec
            if spec.value != nil && (spec.properties != 0x02 || spec.permissions != CoreBluetoothCharacteristicSpec.readable) {
                system.record(.rule("characteristic \(spec.uuid) has a cached value but is not read-only"))
            }
            if spec.properties & 0x81 != 0 { system.record(.rule("characteristic \(spec.uuid) has broadcast or extended properties")) }
        }
        let error = lock.withLock {
            if addErrors[service.uuid.value] == nil { services.append(service) }
            return addErrors[service.uuid.value]
        }
        system.later { [self] in backend?.peripheralManager(self, didAdd: service, error: error) }
    }

    func remove(_ service: FakeLocalService) {
        guard accepts("remove") else { return }
        lock.withLock { services.removeAll { $0 === service } }
    }

    func startAdvertising(_ advertisementData: [String: Any]?) {
        guard accepts("startAdvertising") else { return }
        let data = advertisementData ?? [:]
        for key in data.keys where key != fakeKeys.localName && key != fakeKeys.serviceUUIDs {
            system.record(.rule("advertising key \(key) is not one an app may advertise"))
        }
        lock.withLock { advertising = data }
        system.later { [self] in backend?.peripheralManagerDidStartAdvertising(self, error: nil) }
    }

    func stopAdvertising() {
        guard accepts("stopAdvertising") else { return }
        lock.withLock { advertising = nil }
    }

    func respond(to request: FakeATTRequest, withResult result: Int) {
        system.checkQueue("respond")
        if !request.answersBatch { system.record(.rule("answered a write batch through a request other than its first")) }
        if !request.record(result) { system.record(.rule("answered a request twice")) }
    }

    func updateValue(_ value: Data, for characteristic: FakeLocalCharacteristic, onSubscribedCentrals centrals: [FakeRemoteCentral]?) -> Bool {
        guard accepts("updateValue") else { return false }
        return lock.withLock {
            guard room else {
                refusedUpdates += 1
                return false
            }
            sent.append(Update(value: [UInt8](value), characteristic: characteristic.spec.uuid, centrals: centrals?.map(\.identifier)))
            return true
        }
    }

    func publishL2CAPChannel(withEncryption encryptionRequired: Bool) {
        guard accepts("publishL2CAPChannel") else { return }
        let (psm, error) = lock.withLock { () -> (UInt16, NSError?) in
            if let publishError { return (0, publishError) }
            defer { nextPSM += 1 }
            publishedPSMs[nextPSM] = encryptionRequired
            return (nextPSM, nil)
        }
        system.later { [self] in backend?.peripheralManager(self, didPublishL2CAPChannel: psm, error: error) }
    }

    func unpublishL2CAPChannel(_ PSM: UInt16) {
        guard accepts("unpublishL2CAPChannel") else { return }
        let known = lock.withLock {
            unpublishedPSMs.append(PSM)
            return publishedPSMs.removeValue(forKey: PSM) != nil
        }
        if !known { system.record(.rule("unpublished PSM \(PSM), which is not published")) }
        system.later { [self] in backend?.peripheralManager(self, didUnpublishL2CAPChannel: PSM, error: nil) }
    }

    // MARK: What the test sees

    /// The PSMs published now, with whether each needs an encrypted link.
    var publishedChannels: [UInt16: Bool] { lock.withLock { publishedPSMs } }
    /// The PSMs the backend unpublished, in order.
    var unpublishedChannels: [UInt16] { lock.withLock { unpublishedPSMs } }

    var published: [FakeLocalService] { lock.withLock { services } }
    var advertisement: [String: Any]? { lock.withLock { advertising } }
    var updates: [Update] { lock.withLock { sent } }
    var refusedUpdateCount: Int { lock.withLock { refusedUpdates } }
    var misuse: [FakeMisuse] { system.misuse }
    /// Requests the backend has not answered (CoreBluetooth wants an answer to every one).
    var unanswered: [FakeATTRequest] { lock.withLock { delivered.filter { $0.answersBatch && $0.result == nil } } }

    func characteristic(_ uuid: BluetoothUUID) -> FakeLocalCharacteristic? {
        published.flatMap(\.characteristics).first { $0.spec.uuid == uuid }
    }

    // MARK: What the test does, as the system or a central

    func setRadio(_ state: FakeManagerState) {
        system.onQueue {
            lock.withLock {
                radio = state
                // Off, CoreBluetooth clears the database and stops advertising.
                if state != .poweredOn {
                    services = []
                    advertising = nil
                }
            }
            backend?.peripheralManagerDidUpdateState(self)
        }
    }

    /// Whether `updateValue` finds room; giving room back calls `peripheralManagerIsReady`.
    func setRoom(_ available: Bool) {
        system.onQueue {
            lock.withLock { room = available }
            if available { backend?.peripheralManagerIsReady(toUpdateSubscribers: self) }
        }
    }

    /// A central sends a read of `uuid` and does not wait: the request, to look at its answer later.
    func sendRead(_ uuid: BluetoothUUID, by central: FakeRemoteCentral) -> FakeATTRequest? {
        guard let characteristic = characteristic(uuid) else { return nil }
        let request = FakeATTRequest(central: central, characteristic: characteristic, offset: 0, value: nil)
        lock.withLock { delivered.append(request) }
        system.onQueue { self.backend?.peripheralManager(self, didReceiveRead: request) }
        return request
    }

    /// A central reads `uuid` from `offset`; returns once the backend answered.
    func read(_ uuid: BluetoothUUID, offset: Int = 0, by central: FakeRemoteCentral) async -> (result: Int, value: [UInt8]?) {
        guard let characteristic = characteristic(uuid) else { return (-1, nil) }
        let request = FakeATTRequest(central: central, characteristic: characteristic, offset: offset, value: nil)
        lock.withLock { delivered.append(request) }
        system.onQueue { backend?.peripheralManager(self, didReceiveRead: request) }
        while request.result == nil { await Task.yield() }
        return (request.result ?? -1, request.value.map { [UInt8]($0) })
    }

    /// A central writes a batch of (characteristic, offset, bytes); returns the batch's answer.
    func write(_ parts: [(BluetoothUUID, Int, [UInt8])], by central: FakeRemoteCentral) async -> Int {
        var requests: [FakeATTRequest] = []
        for (index, part) in parts.enumerated() {
            guard let characteristic = characteristic(part.0) else { return -1 }
            requests.append(
                FakeATTRequest(central: central, characteristic: characteristic, offset: part.1, value: Data(part.2), answersBatch: index == 0))
        }
        guard let first = requests.first else { return -1 }
        lock.withLock { delivered.append(first) }
        system.onQueue { backend?.peripheralManager(self, didReceiveWrite: requests) }
        while first.result == nil { await Task.yield() }
        return first.result ?? -1
    }

    /// A central opens a channel on `psm`: `didOpen` with a new channel (on the queue); returns
    /// it, for the test to play the central.
    @discardableResult
    func centralOpensChannel(psm: UInt16, central: UUID = UUID()) -> FakeL2CAPChannel {
        let channel = FakeL2CAPChannel(psm: psm, peer: central)
        system.onQueue { backend?.peripheralManager(self, didOpen: channel, error: nil) }
        return channel
    }

    func subscribe(_ central: FakeRemoteCentral, to uuid: BluetoothUUID) {
        guard let characteristic = characteristic(uuid) else { return }
        system.onQueue { backend?.peripheralManager(self, central: central, didSubscribeTo: characteristic) }
    }

    func unsubscribe(_ central: FakeRemoteCentral, from uuid: BluetoothUUID) {
        guard let characteristic = characteristic(uuid) else { return }
        system.onQueue { backend?.peripheralManager(self, central: central, didUnsubscribeFrom: characteristic) }
    }
}
