import HaraldCodec

/// Client Characteristic Configuration descriptor (0x2902): whether a client wants
/// notifications and/or indications of a characteristic. u16; `01 00` turns notifications on,
/// `02 00` indications, `00 00` both off.
///
/// Bits 2…15 are reserved; they are kept as received so a server can decide what to do with
/// them.
public struct ClientCharacteristicConfiguration: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2902)
    public static let name = "Client Characteristic Configuration"

    /// The bits of the value.
    public enum Bit: Int, FlagBit {
        case notifications = 0, indications = 1
    }

    /// Every bit of the value.
    public var flags: Flags<Bit, UInt16>

    @inlinable
    public init(_ flags: Flags<Bit, UInt16>) { self.flags = flags }

    /// Both off.
    public static let disabled = ClientCharacteristicConfiguration([])
    /// Notifications on.
    public static let notifications = ClientCharacteristicConfiguration([.notifications])
    /// Indications on.
    public static let indications = ClientCharacteristicConfiguration([.indications])

    /// Whether notifications are enabled.
    public var notificationsEnabled: Bool { flags.contains(.notifications) }
    /// Whether indications are enabled.
    public var indicationsEnabled: Bool { flags.contains(.indications) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        flags = try reader.readFlags(Bit.self, as: UInt16.self, field: "configuration")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(flags)
    }

    /// `{notifications, indications, value (raw)}`.
    public var jsonValue: JSONValue {
        .object([
            "notifications": .bool(notificationsEnabled), "indications": .bool(indicationsEnabled),
            "value": .int(flags.rawValue),
        ])
    }
}
