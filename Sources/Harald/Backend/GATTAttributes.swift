import HaraldCodec
import HaraldCore

/// A service found on a connected peripheral.
public struct DiscoveredService: Hashable, Sendable {
    public var uuid: BluetoothUUID
    /// True for a primary service.
    public var isPrimary: Bool
    /// First and last attribute handle of the service (ATT backends; CoreBluetooth assigns
    /// stable stand-ins).
    public var handles: ClosedRange<UInt16>

    public init(uuid: BluetoothUUID, isPrimary: Bool = true, handles: ClosedRange<UInt16>) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.handles = handles
    }
}

/// A characteristic found on a connected peripheral.
public struct DiscoveredCharacteristic: Hashable, Sendable {
    public var uuid: BluetoothUUID
    /// The service it belongs to.
    public var service: BluetoothUUID
    public var properties: CharacteristicProperties
    /// The handle of its value attribute: the key for every operation on it. Unique within a
    /// connection.
    public var valueHandle: UInt16
    /// The last handle of the characteristic (its descriptors lie between the two).
    public var endHandle: UInt16

    public init(uuid: BluetoothUUID, service: BluetoothUUID, properties: CharacteristicProperties, valueHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.service = service
        self.properties = properties
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }
}

/// A descriptor found on a connected peripheral.
public struct DiscoveredDescriptor: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var handle: UInt16
    /// The value handle of the characteristic it describes.
    public var characteristicValueHandle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16, characteristicValueHandle: UInt16) {
        self.uuid = uuid
        self.handle = handle
        self.characteristicValueHandle = characteristicValueHandle
    }
}

/// How to write a characteristic value.
public enum WriteKind: Hashable, Sendable {
    /// Write Request: the peer acknowledges (values longer than MTU−3 use a long write).
    case withResponse
    /// Write Command: no acknowledgement, flow-controlled by the backend.
    case withoutResponse
}
