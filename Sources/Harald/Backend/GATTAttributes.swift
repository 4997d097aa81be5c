import HaraldCodec
import HaraldCore

/// A service found on a connected peripheral.
public struct DiscoveredService: Hashable, Sendable {
    /// The service's identity on this connection: the key every operation on it uses.
    public var id: AttributeID
    /// The service type (0x180D for Heart Rate, say).
    public var uuid: BluetoothUUID
    /// True for a primary service.
    public var isPrimary: Bool
    /// The attribute handles the service spans, from its declaration to its last attribute
    /// (Core spec Vol 3 Part G §3.1), when the backend sees them; nil on CoreBluetooth, which
    /// hides handles.
    public var handles: ATTHandleRange?

    /// A service as a backend discovered it; `handles` when the backend sees ATT handles.
    public init(id: AttributeID, uuid: BluetoothUUID, isPrimary: Bool = true, handles: ATTHandleRange? = nil) {
        self.id = id
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.handles = handles
    }
}

/// A characteristic found on a connected peripheral.
public struct DiscoveredCharacteristic: Hashable, Sendable {
    /// The characteristic's identity on this connection: the key every operation on it (read,
    /// write, notifications, descriptor discovery) uses.
    public var id: AttributeID
    /// The characteristic type (0x2A37 for Heart Rate Measurement, say).
    public var uuid: BluetoothUUID
    /// The service it belongs to.
    public var service: BluetoothUUID
    /// What its declaration says it supports: read, write, notify, indicate, …
    public var properties: CharacteristicProperties
    /// The handle of its value attribute (Core spec Vol 3 Part G §3.3.2), when the backend sees
    /// handles; nil on CoreBluetooth.
    public var valueHandle: UInt16?
    /// The last handle of the characteristic (its descriptors lie after the value handle, up to
    /// this one), when the backend sees handles; nil on CoreBluetooth.
    public var endHandle: UInt16?

    /// A characteristic as a backend discovered it; the handles when the backend sees ATT.
    public init(
        id: AttributeID, uuid: BluetoothUUID, service: BluetoothUUID, properties: CharacteristicProperties,
        valueHandle: UInt16? = nil, endHandle: UInt16? = nil
    ) {
        self.id = id
        self.uuid = uuid
        self.service = service
        self.properties = properties
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }
}

/// A descriptor found on a connected peripheral.
public struct DiscoveredDescriptor: Hashable, Sendable {
    /// The descriptor's identity on this connection: the key for reading and writing it.
    public var id: AttributeID
    /// The descriptor type (0x2902 for the CCCD, say).
    public var uuid: BluetoothUUID
    /// Its attribute handle, when the backend sees handles; nil on CoreBluetooth.
    public var handle: UInt16?
    /// The identity of the characteristic it describes.
    public var characteristicID: AttributeID

    /// A descriptor of the characteristic `characteristicID`.
    public init(id: AttributeID, uuid: BluetoothUUID, handle: UInt16? = nil, characteristicID: AttributeID) {
        self.id = id
        self.uuid = uuid
        self.handle = handle
        self.characteristicID = characteristicID
    }
}

/// How to write a characteristic value.
public enum WriteKind: Hashable, Sendable {
    /// Write Request: the peer acknowledges (values longer than MTU−3 use a long write).
    case withResponse
    /// Write Command: no acknowledgement, flow-controlled by the backend.
    case withoutResponse
}
