import HaraldCodec

/// A range of attribute handles, both ends included (an ATT Starting Handle and Ending Handle).
///
/// Handles are 16-bit; 0x0000 is never a valid attribute handle.
public struct ATTHandleRange: Hashable, Sendable, CustomStringConvertible {
    /// First handle of the range.
    public var start: UInt16
    /// Last handle of the range.
    public var end: UInt16

    /// The handles `start` through `end`, both included (0x0001…0xFFFF).
    public init(start: UInt16, end: UInt16) {
        self.start = start
        self.end = end
    }

    /// Every handle, 0x0001…0xFFFF.
    public static let all = ATTHandleRange(start: 0x0001, end: 0xFFFF)

    /// True when the range is one a request may carry: start is not 0 and not after end.
    public var isValid: Bool { start != 0 && start <= end }

    /// Whether `handle` lies in the range.
    public func contains(_ handle: UInt16) -> Bool { start <= handle && handle <= end }

    /// `0x0001-0xFFFF`.
    public var description: String { "0x\(Hex.word(start))-0x\(Hex.word(end))" }
}

/// Attribute types GATT defines for its declarations and descriptors (Core spec Vol 3 Part G §3).
public enum GATTAttributeType {
    /// Primary Service declaration, 0x2800.
    public static let primaryService = BluetoothUUID(0x2800)
    /// Secondary Service declaration, 0x2801.
    public static let secondaryService = BluetoothUUID(0x2801)
    /// Include declaration, 0x2802.
    public static let include = BluetoothUUID(0x2802)
    /// Characteristic declaration, 0x2803.
    public static let characteristic = BluetoothUUID(0x2803)
    /// Characteristic Extended Properties descriptor, 0x2900.
    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    /// Characteristic User Description descriptor, 0x2901.
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    /// Client Characteristic Configuration descriptor (CCCD), 0x2902.
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    /// Server Characteristic Configuration descriptor (SCCD), 0x2903.
    public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
    /// Characteristic Presentation Format descriptor, 0x2904.
    public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
    /// Characteristic Aggregate Format descriptor, 0x2905.
    public static let characteristicAggregateFormat = BluetoothUUID(0x2905)
}

/// The properties byte of a characteristic declaration (Core spec Vol 3 Part G §3.3.1.1): which
/// operations the characteristic's value permits.
public struct CharacteristicProperties: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The properties byte as the characteristic declaration carries it, one bit per property.
    public var rawValue: UInt8
    /// The properties with these bits set; bits without a name here are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The value may be broadcast in advertising data (Server Characteristic Configuration).
    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    /// The value may be read.
    public static let read = CharacteristicProperties(rawValue: 0x02)
    /// The value may be written with a Write Command (no response).
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    /// The value may be written with a Write Request (acknowledged).
    public static let write = CharacteristicProperties(rawValue: 0x08)
    /// The server may notify the value (no confirmation).
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    /// The server may indicate the value (the client confirms).
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    /// The value may be written with a Signed Write Command.
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    /// An Extended Properties descriptor follows.
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)

    private static let names: [(CharacteristicProperties, String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "writeWithoutResponse"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticatedSignedWrites"), (.extendedProperties, "extendedProperties"),
    ]

    /// The names of the set properties, in bit order.
    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    /// `[read, notify]`.
    public var description: String { "[\(names.joined(separator: ", "))]" }
}
