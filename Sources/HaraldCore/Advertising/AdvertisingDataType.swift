import HaraldCodec

/// The type byte of an advertising data (AD) structure (Assigned Numbers, "Common Data Types").
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable {
    /// The AD type byte, e.g. 0x09 for Complete Local Name.
    public var rawValue: UInt8
    /// The AD type with this type byte; any value is accepted, assigned or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Flags: discoverability and BR/EDR support (see `AdvertisingFlag`).
    public static let flags = AdvertisingDataType(rawValue: 0x01)
    /// 0x02 Incomplete List of 16-bit Service UUIDs.
    public static let incompleteList16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x02)
    /// 0x03 Complete List of 16-bit Service UUIDs.
    public static let completeList16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x03)
    /// 0x04 Incomplete List of 32-bit Service UUIDs.
    public static let incompleteList32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x04)
    /// 0x05 Complete List of 32-bit Service UUIDs.
    public static let completeList32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x05)
    /// 0x06 Incomplete List of 128-bit Service UUIDs.
    public static let incompleteList128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x06)
    /// 0x07 Complete List of 128-bit Service UUIDs.
    public static let completeList128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x07)
    /// 0x08 Shortened Local Name.
    public static let shortenedLocalName = AdvertisingDataType(rawValue: 0x08)
    /// 0x09 Complete Local Name.
    public static let completeLocalName = AdvertisingDataType(rawValue: 0x09)
    /// 0x0A Tx Power Level, in dBm (−127…127).
    public static let txPowerLevel = AdvertisingDataType(rawValue: 0x0A)
    /// 0x14 List of 16-bit Service Solicitation UUIDs.
    public static let solicitation16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x14)
    /// 0x15 List of 128-bit Service Solicitation UUIDs.
    public static let solicitation128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x15)
    /// 0x16 Service Data with a 16-bit UUID.
    public static let serviceData16BitUUID = AdvertisingDataType(rawValue: 0x16)
    /// 0x19 Appearance: what kind of device it is (GAP).
    public static let appearance = AdvertisingDataType(rawValue: 0x19)
    /// 0x1F List of 32-bit Service Solicitation UUIDs.
    public static let solicitation32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x1F)
    /// 0x20 Service Data with a 32-bit UUID.
    public static let serviceData32BitUUID = AdvertisingDataType(rawValue: 0x20)
    /// 0x21 Service Data with a 128-bit UUID.
    public static let serviceData128BitUUID = AdvertisingDataType(rawValue: 0x21)
    /// 0xFF Manufacturer Specific Data: a company identifier, then its bytes.
    public static let manufacturerSpecificData = AdvertisingDataType(rawValue: 0xFF)
}

/// The Flags AD structure's bits (Core Specification Supplement, Part A §1.3).
public enum AdvertisingFlag: Int, FlagBit {
    /// Bit 0: LE Limited Discoverable Mode (discoverable for a short time).
    case limitedDiscoverable = 0
    /// Bit 1: LE General Discoverable Mode.
    case generalDiscoverable = 1
    /// Bit 2: BR/EDR (classic Bluetooth) not supported.
    case brEDRNotSupported = 2
    /// Bit 3: the controller does LE and BR/EDR at once.
    case simultaneousLEAndBREDRController = 3
    /// Bit 4: the host does LE and BR/EDR at once.
    case simultaneousLEAndBREDRHost = 4
}
