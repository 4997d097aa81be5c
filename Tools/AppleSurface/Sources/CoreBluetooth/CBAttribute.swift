/// What services, characteristics and descriptors share: a type UUID. Not made directly.
@available(iOS 8.0, macOS 10.13, tvOS 9.0, watchOS 2.0, *)
open class CBAttribute: NSObject {
    init(surfaceOnly: Void) { super.init() }

    /// The attribute's type.
    open var uuid: CBUUID { surfaceOnly() }
}

/// A GATT service of a remote peripheral, or one the app's peripheral manager published.
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
open class CBService: CBAttribute {
    /// The peripheral the service belongs to (held weakly).
    open internal(set) weak var peripheral: CBPeripheral?
    /// Whether it is a primary service; a secondary one is only included by others.
    open var isPrimary: Bool { surfaceOnly() }
    /// The included services found so far; nil before any discovery of them.
    open var includedServices: [CBService]? { surfaceOnly() }
    /// The characteristics found so far; nil before any discovery of them.
    open var characteristics: [CBCharacteristic]? { surfaceOnly() }
}

/// A service the app builds to publish with a peripheral manager.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBMutableService: CBService {
    /// A service of this type, primary or secondary, with nothing in it yet.
    public init(type UUID: CBUUID, primary isPrimary: Bool) { super.init(surfaceOnly: ()) }

    /// The services it includes.
    override open var includedServices: [CBService]? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
    /// Its characteristics.
    override open var characteristics: [CBCharacteristic]? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
}

/// The properties of a characteristic, as its declaration lists them (the low 8 bits are the ATT
/// properties byte).
public struct CBCharacteristicProperties: OptionSet, Sendable {
    /// The bit pattern.
    public let rawValue: UInt
    /// Properties from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The value can be broadcast in advertisements (not on local characteristics).
    public static let broadcast = CBCharacteristicProperties(rawValue: 0x01)
    /// The value can be read.
    public static let read = CBCharacteristicProperties(rawValue: 0x02)
    /// The value can be written without a response.
    public static let writeWithoutResponse = CBCharacteristicProperties(rawValue: 0x04)
    /// The value can be written with a response.
    public static let write = CBCharacteristicProperties(rawValue: 0x08)
    /// The value can be notified (unacknowledged).
    public static let notify = CBCharacteristicProperties(rawValue: 0x10)
    /// The value can be indicated (acknowledged).
    public static let indicate = CBCharacteristicProperties(rawValue: 0x20)
    /// Signed writes are allowed.
    public static let authenticatedSignedWrites = CBCharacteristicProperties(rawValue: 0x40)
    /// More properties are in the Extended Properties descriptor (not on local characteristics).
    public static let extendedProperties = CBCharacteristicProperties(rawValue: 0x80)
    /// Only trusted (bonded) devices may enable notifications.
    @available(iOS 6.0, macOS 10.9, *)
    public static let notifyEncryptionRequired = CBCharacteristicProperties(rawValue: 0x100)
    /// Only trusted (bonded) devices may enable indications.
    @available(iOS 6.0, macOS 10.9, *)
    public static let indicateEncryptionRequired = CBCharacteristicProperties(rawValue: 0x200)
}

/// A GATT characteristic of a remote peripheral's service, or of one the app published.
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
open class CBCharacteristic: CBAttribute {
    /// The service it belongs to (held weakly).
    open internal(set) weak var service: CBService?
    /// Its declared properties.
    open var properties: CBCharacteristicProperties { surfaceOnly() }
    /// The last value read or notified; nil before any.
    open var value: Data? { surfaceOnly() }
    /// The descriptors found so far; nil before any discovery of them.
    open var descriptors: [CBDescriptor]? { surfaceOnly() }
    /// Whether the value is being broadcast (no longer reported).
    @available(iOS, introduced: 5.0, deprecated: 8.0)
    @available(macOS, introduced: 10.9, deprecated: 10.13)
    open var isBroadcasted: Bool { surfaceOnly() }
    /// Whether notifications or indications of the value are on.
    open var isNotifying: Bool { surfaceOnly() }
}

/// Who may read or write a local characteristic's value, and over what kind of link.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
public struct CBAttributePermissions: OptionSet, Sendable {
    /// The bit pattern.
    public let rawValue: UInt
    /// Permissions from their bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Any connected central may read it.
    public static let readable = CBAttributePermissions(rawValue: 0x01)
    /// Any connected central may write it.
    public static let writeable = CBAttributePermissions(rawValue: 0x02)
    /// Reads need an encrypted link with a trusted device.
    public static let readEncryptionRequired = CBAttributePermissions(rawValue: 0x04)
    /// Writes need an encrypted link with a trusted device.
    public static let writeEncryptionRequired = CBAttributePermissions(rawValue: 0x08)
}

/// A characteristic the app builds to publish in a service of its peripheral manager.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBMutableCharacteristic: CBCharacteristic {
    /// A characteristic of this type. A non-nil `value` is cached by the system and makes the
    /// characteristic read-only; with nil, every read and write comes to the app.
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public init(type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions) {
        super.init(surfaceOnly: ())
    }

    /// Its read and write permissions.
    open var permissions: CBAttributePermissions {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
    /// The centrals subscribed to its notifications or indications.
    @available(iOS 7.0, macOS 10.9, *)
    open var subscribedCentrals: [CBCentral]? { surfaceOnly() }
    /// Its properties.
    override open var properties: CBCharacteristicProperties {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
    /// Its cached value, if any.
    override open var value: Data? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
    /// Its descriptors (User Description and Presentation Format only).
    override open var descriptors: [CBDescriptor]? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
}

/// A GATT descriptor of a remote characteristic, or of one the app published.
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
open class CBDescriptor: CBAttribute {
    /// The characteristic it belongs to (held weakly).
    open internal(set) weak var characteristic: CBCharacteristic?
    /// The last value read: `NSNumber`, `String` or `Data`, depending on the descriptor's type.
    open var value: Any? { surfaceOnly() }
}

/// A descriptor the app adds to a characteristic it publishes (User Description or Presentation
/// Format; the system makes the Client Characteristic Configuration itself).
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBMutableDescriptor: CBDescriptor {
    /// A descriptor of this type with this value.
    public init(type UUID: CBUUID, value: Any?) { super.init(surfaceOnly: ()) }
}
