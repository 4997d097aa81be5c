/// A Bluetooth UUID: 16 or 32 bits for the Bluetooth SIG's assigned numbers, else 128 bits.
open class CBUUID: NSObject, NSCopying {
    init(surfaceOnly: Void) { super.init() }

    /// A UUID from text: 4 or 8 hexadecimal digits (an assigned number) or the 36-character form.
    public convenience init(string theString: String) { surfaceOnly() }
    /// A UUID from its 2, 4 or 16 bytes, most significant first.
    public convenience init(data theData: Data) { surfaceOnly() }
    /// A 128-bit UUID from Foundation's UUID.
    @available(iOS 7.0, macOS 10.13, *)
    public convenience init(nsuuid theUUID: UUID) { surfaceOnly() }

    /// The UUID's bytes (2, 4 or 16).
    open var data: Data { surfaceOnly() }
    /// The UUID as text: the short form for an assigned number, else the 36-character form.
    @available(iOS 7.1, macOS 10.10, *)
    open var uuidString: String { surfaceOnly() }

    /// A copy (the UUID is immutable).
    open func copy(with zone: NSZone? = nil) -> Any { surfaceOnly() }
}

// The UUIDs of the descriptors an app may name, as text for `CBUUID(string:)`.

/// Characteristic Extended Properties (0x2900).
public let CBUUIDCharacteristicExtendedPropertiesString: String = "2900"
/// Characteristic User Description (0x2901).
public let CBUUIDCharacteristicUserDescriptionString: String = "2901"
/// Client Characteristic Configuration (0x2902), which the system writes itself.
public let CBUUIDClientCharacteristicConfigurationString: String = "2902"
/// Server Characteristic Configuration (0x2903).
public let CBUUIDServerCharacteristicConfigurationString: String = "2903"
/// Characteristic Presentation Format (0x2904).
public let CBUUIDCharacteristicFormatString: String = "2904"
/// Characteristic Aggregate Format (0x2905).
public let CBUUIDCharacteristicAggregateFormatString: String = "2905"
/// Valid Range (0x2906).
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public let CBUUIDCharacteristicValidRangeString: String = "2906"
/// The PSM characteristic of an L2CAP channel a peripheral publishes.
@available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
public let CBUUIDL2CAPPSMCharacteristicString: String = "ABDD3056-28FA-441D-A470-55A75A52553A"
