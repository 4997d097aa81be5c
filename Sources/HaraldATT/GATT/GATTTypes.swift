import HaraldCodec
import HaraldCore

/// A service found on (or offered by) a GATT server: its UUID and the handles it spans.
public struct GATTService: Sendable, Hashable {
    /// The service type (0x180D for Heart Rate, say).
    public var uuid: BluetoothUUID
    /// From the service declaration to the service's last attribute.
    public var handles: ATTHandleRange
    /// Whether it is a primary service (else a secondary one, reachable through includes).
    public var isPrimary: Bool

    /// A service found at `handles`.
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

    /// An include declaration at `declarationHandle` naming `service`.
    public init(declarationHandle: UInt16, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}

/// A characteristic found by discovery.
public struct GATTCharacteristic: Sendable, Hashable {
    /// The characteristic type (0x2A37 for Heart Rate Measurement, say).
    public var uuid: BluetoothUUID
    /// What the declaration says the characteristic supports (read, write, notify, …).
    public var properties: CharacteristicProperties
    /// Handle of the characteristic declaration.
    public var declarationHandle: UInt16
    /// Handle of the characteristic value (what reads, writes and notifications address).
    public var valueHandle: UInt16
    /// Last handle that belongs to the characteristic (its last descriptor, or the value handle).
    public var endHandle: UInt16

    /// A characteristic from its declaration; `endHandle` is the last handle of its descriptors.
    public init(uuid: BluetoothUUID, properties: CharacteristicProperties, declarationHandle: UInt16, valueHandle: UInt16, endHandle: UInt16) {
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
    /// The descriptor type (0x2902 for the CCCD, say).
    public var uuid: BluetoothUUID
    /// The descriptor's attribute handle.
    public var handle: UInt16

    /// A descriptor found at `handle`.
    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// A value pushed by the server: a notification or an indication.
public struct GATTNotification: Sendable, Hashable {
    /// The characteristic value handle.
    public var handle: UInt16
    /// The value bytes, at most ATT_MTU − 3 of them.
    public var value: [UInt8]
    /// True for an indication (the client confirmed it), false for a notification.
    public var isIndication: Bool

    /// A value pushed for `handle`.
    public init(handle: UInt16, value: [UInt8], isIndication: Bool) {
        self.handle = handle
        self.value = value
        self.isIndication = isIndication
    }
}
