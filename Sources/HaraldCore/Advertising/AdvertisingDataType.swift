import HaraldCodec

/// The type byte of an advertising data (AD) structure (Assigned Numbers, "Common Data Types").
public struct AdvertisingDataType: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = AdvertisingDataType(rawValue: 0x01)
    public static let incompleteList16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x02)
    public static let completeList16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x03)
    public static let incompleteList32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x04)
    public static let completeList32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x05)
    public static let incompleteList128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x06)
    public static let completeList128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x07)
    public static let shortenedLocalName = AdvertisingDataType(rawValue: 0x08)
    public static let completeLocalName = AdvertisingDataType(rawValue: 0x09)
    public static let txPowerLevel = AdvertisingDataType(rawValue: 0x0A)
    public static let solicitation16BitServiceUUIDs = AdvertisingDataType(rawValue: 0x14)
    public static let solicitation128BitServiceUUIDs = AdvertisingDataType(rawValue: 0x15)
    public static let serviceData16BitUUID = AdvertisingDataType(rawValue: 0x16)
    public static let appearance = AdvertisingDataType(rawValue: 0x19)
    public static let solicitation32BitServiceUUIDs = AdvertisingDataType(rawValue: 0x1F)
    public static let serviceData32BitUUID = AdvertisingDataType(rawValue: 0x20)
    public static let serviceData128BitUUID = AdvertisingDataType(rawValue: 0x21)
    public static let manufacturerSpecificData = AdvertisingDataType(rawValue: 0xFF)
}

/// The Flags AD structure's bits (Core Specification Supplement, Part A §1.3).
public enum AdvertisingFlag: Int, FlagBit {
    case limitedDiscoverable = 0
    case generalDiscoverable = 1
    case brEDRNotSupported = 2
    case simultaneousLEAndBREDRController = 3
    case simultaneousLEAndBREDRHost = 4
}
