import Foundation
import HaraldCodec
import HaraldCoreBluetooth

// Stand-ins for CBUUID, CBService, CBCharacteristic and CBDescriptor. Their mutable state is
// guarded by the lock of the `FakeSystem` every fake object shares.

/// The error domains and dictionary keys the fake uses (any distinct strings do).
let fakeKeys = CoreBluetoothKeys(
    localName: "localName", txPowerLevel: "txPowerLevel", serviceUUIDs: "serviceUUIDs", serviceData: "serviceData",
    manufacturerData: "manufacturerData", overflowServiceUUIDs: "overflowServiceUUIDs", isConnectable: "isConnectable",
    solicitedServiceUUIDs: "solicitedServiceUUIDs", scanAllowDuplicates: "allowDuplicates",
    restoredPeripherals: "restoredPeripherals", restoredScanServices: "restoredScanServices",
    notifyOnConnection: "notifyOnConnection", notifyOnDisconnection: "notifyOnDisconnection", notifyOnNotification: "notifyOnNotification",
    enableAutoReconnect: "enableAutoReconnect", errorDomain: "FakeCBErrorDomain", attErrorDomain: "FakeCBATTErrorDomain")

/// An ATT error as CoreBluetooth reports it (`CBATTError`).
func attError(_ code: Int) -> NSError { NSError(domain: fakeKeys.attErrorDomain, code: code) }
/// A CoreBluetooth error (`CBError`).
func cbError(_ code: Int) -> NSError { NSError(domain: fakeKeys.errorDomain, code: code) }

final class FakeUUID: CoreBluetoothUUID, Hashable, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let value: BluetoothUUID
    init(_ value: BluetoothUUID) { self.value = value }
    var uuidString: String { value.uuidString }
    static func == (lhs: FakeUUID, rhs: FakeUUID) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

struct FakeProperties: RawRepresentable, Sendable {
    var rawValue: UInt
    init(rawValue: UInt) { self.rawValue = rawValue }
    static let read = FakeProperties(rawValue: 0x02)
    static let writeWithoutResponse = FakeProperties(rawValue: 0x04)
    static let write = FakeProperties(rawValue: 0x08)
    static let notify = FakeProperties(rawValue: 0x10)
    static let indicate = FakeProperties(rawValue: 0x20)
    static func | (lhs: Self, rhs: Self) -> Self { FakeProperties(rawValue: lhs.rawValue | rhs.rawValue) }
}

enum FakeWriteType: Int { case withResponse = 0, withoutResponse = 1 }
enum FakeManagerState: Int { case unknown = 0, resetting, unsupported, unauthorized, poweredOff, poweredOn }
enum FakePeripheralState: Int { case disconnected = 0, connecting, connected, disconnecting }

final class FakeDescriptor: CoreBluetoothDescriptor, @unchecked Sendable {
    // @unchecked Sendable: `storedValue` and `shownValue` are guarded by `system.lock`.
    let uuid: FakeUUID
    let system: FakeSystem
    var storedValue: Any?
    /// What a read shows: the value as CoreBluetooth would hand it out, set when a read completes.
    var shownValue: Any?

    init(_ uuid: BluetoothUUID, value: Any?, system: FakeSystem) {
        self.uuid = FakeUUID(uuid)
        self.storedValue = value
        self.system = system
    }

    var lock: NSLock { system.lock }

    var value: Any? {
        system.checkQueue("CBDescriptor.value")
        return lock.withLock { shownValue }
    }
}

final class FakeCharacteristic: CoreBluetoothCharacteristic, @unchecked Sendable {
    // @unchecked Sendable: mutable state is guarded by `system.lock`.
    let uuid: FakeUUID
    let properties: FakeProperties
    let system: FakeSystem
    let allDescriptors: [FakeDescriptor]
    var storedValue: [UInt8]
    var shownValue: Data?
    var shownDescriptors: [FakeDescriptor]?
    var notifying = false
    /// ATT error code a read answers with, if any.
    var readError: NSError?
    var writeError: NSError?

    init(_ uuid: BluetoothUUID, properties: FakeProperties, value: [UInt8], descriptors: [FakeDescriptor], system: FakeSystem) {
        self.uuid = FakeUUID(uuid)
        self.properties = properties
        self.storedValue = value
        self.allDescriptors = descriptors
        self.system = system
    }

    var lock: NSLock { system.lock }

    var value: Data? {
        system.checkQueue("CBCharacteristic.value")
        return lock.withLock { shownValue }
    }

    var descriptors: [FakeDescriptor]? {
        system.checkQueue("CBCharacteristic.descriptors")
        return lock.withLock { shownDescriptors }
    }

    var isNotifying: Bool {
        system.checkQueue("CBCharacteristic.isNotifying")
        return lock.withLock { notifying }
    }
}

final class FakeService: CoreBluetoothService, @unchecked Sendable {
    // @unchecked Sendable: `shownCharacteristics` is guarded by `system.lock`.
    let uuid: FakeUUID
    let system: FakeSystem
    let allCharacteristics: [FakeCharacteristic]
    var shownCharacteristics: [FakeCharacteristic]?

    init(_ uuid: BluetoothUUID, characteristics: [FakeCharacteristic], system: FakeSystem) {
        self.uuid = FakeUUID(uuid)
        self.allCharacteristics = characteristics
        self.system = system
    }

    var isPrimary: Bool { true }

    var characteristics: [FakeCharacteristic]? {
        system.checkQueue("CBService.characteristics")
        return system.lock.withLock { shownCharacteristics }
    }
}

/// A GATT database to build a fake peripheral from.
struct FakeGATT {
    struct Descriptor {
        var uuid: BluetoothUUID
        var value: Any?
    }
    struct Characteristic {
        var uuid: BluetoothUUID
        var properties: FakeProperties
        var value: [UInt8] = []
        var descriptors: [Descriptor] = []
    }
    struct Service {
        var uuid: BluetoothUUID
        var characteristics: [Characteristic]
    }
    var services: [Service]
}
