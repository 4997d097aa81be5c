import HaraldCodec

/// Attribute types GATT defines (Core spec Vol 3 Part G §3).
public enum GATTAttributeType {
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)
    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
}

/// A service found on (or offered by) a GATT server: its UUID and the handles it spans.
public struct GATTService: Sendable, Hashable {
    public var uuid: BluetoothUUID
    /// From the service declaration to the service's last attribute.
    public var handles: ATTHandleRange
    public var isPrimary: Bool

    public init(uuid: BluetoothUUID, handles: ATTHandleRange, isPrimary: Bool = true) {
        self.uuid = uuid
        self.handles = handles
        self.isPrimary = isPrimary
    }
}

/// An include declaration inside a service, pointing at another service.
public struct GATTIncludedService: Sendable, Hashable {
    /// Handle of the include declaration itself.
    public var declarationHandle: UInt16
    /// The service it includes.
    public var service: GATTService

    public init(declarationHandle: UInt16, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}

/// Characteristic properties, the first byte of a characteristic declaration.
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = GATTCharacteristicProperties(rawValue: 0x01)
    public static let read = GATTCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 0x04)
    public static let write = GATTCharacteristicProperties(rawValue: 0x08)
    public static let notify = GATTCharacteristicProperties(rawValue: 0x10)
    public static let indicate = GATTCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = GATTCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = GATTCharacteristicProperties(rawValue: 0x80)
}

/// A characteristic found by discovery.
public struct GATTCharacteristic: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var properties: GATTCharacteristicProperties
    /// Handle of the characteristic declaration.
    public var declarationHandle: UInt16
    /// Handle of the characteristic value (what reads, writes and notifications address).
    public var valueHandle: UInt16
    /// Last handle that belongs to the characteristic (its last descriptor, or the value handle).
    public var endHandle: UInt16

    public init(uuid: BluetoothUUID, properties: GATTCharacteristicProperties, declarationHandle: UInt16, valueHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.properties = properties
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }

    /// The handles where this characteristic's descriptors may be: after the value, up to the end.
    public var descriptorHandles: ATTHandleRange? {
        valueHandle < endHandle ? ATTHandleRange(start: valueHandle + 1, end: endHandle) : nil
    }
}

/// A characteristic descriptor found by discovery.
public struct GATTDescriptor: Sendable, Hashable {
    public var uuid: BluetoothUUID
    public var handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// The Client Characteristic Configuration value (descriptor 0x2902): which pushes the client
/// wants for one characteristic.
public struct GATTClientConfiguration: OptionSet, Sendable, Hashable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notifications = GATTClientConfiguration(rawValue: 0x0001)
    public static let indications = GATTClientConfiguration(rawValue: 0x0002)

    /// The 2-byte little-endian descriptor value.
    public var bytes: [UInt8] { [UInt8(rawValue & 0xFF), UInt8(rawValue >> 8)] }
}

/// A value pushed by the server: a notification or an indication.
public struct GATTNotification: Sendable, Hashable {
    /// The characteristic value handle.
    public var handle: UInt16
    public var value: [UInt8]
    /// True for an indication (the client confirmed it), false for a notification.
    public var isIndication: Bool

    public init(handle: UInt16, value: [UInt8], isIndication: Bool) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }
}
