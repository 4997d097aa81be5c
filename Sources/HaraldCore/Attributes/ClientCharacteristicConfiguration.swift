import HaraldCodec

/// The Client Characteristic Configuration descriptor (0x2902, "CCCD"): whether a client wants
/// notifications and/or indications of one characteristic (Core spec Vol 3 Part G §3.3.3.3).
///
/// A little-endian u16: `01 00` notifications on, `02 00` indications on, `00 00` both off.
/// Bits 2…15 are reserved; they are kept as received so a server can decide what to do with them.
public struct ClientCharacteristicConfiguration: OptionSet, ByteCodable, Hashable, Sendable, CustomStringConvertible {
    /// The descriptor's UUID, 0x2902.
    public static let uuid = BluetoothUUID(0x2902)

    /// The 16 bits of the value.
    public var rawValue: UInt16
    /// The configuration with these 16 bits, reserved bits included.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Bit 0: the server may send Handle Value Notifications.
    public static let notifications = ClientCharacteristicConfiguration(rawValue: 0x0001)
    /// Bit 1: the server may send Handle Value Indications (the client confirms each).
    public static let indications = ClientCharacteristicConfiguration(rawValue: 0x0002)
    /// Both off.
    public static let disabled: ClientCharacteristicConfiguration = []

    /// Whether notifications are enabled.
    public var notificationsEnabled: Bool { contains(.notifications) }
    /// Whether indications are enabled.
    public var indicationsEnabled: Bool { contains(.indications) }
    /// The reserved bits that were set (bits 2…15).
    public var reservedBits: UInt16 { rawValue & ~0x0003 }

    /// The 2-byte little-endian descriptor value.
    public var bytes: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(rawValue >> 8)] }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        rawValue = try reader.read(UInt16.self, field: "configuration")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(rawValue)
    }

    /// `notifications`, `indications`, `notifications+indications` or `disabled`, with any
    /// reserved bits in hex.
    public var description: String {
        var parts: [String] = []
        if notificationsEnabled { parts.append("notifications") }
        if indicationsEnabled { parts.append("indications") }
        if reservedBits != 0 { parts.append("reserved 0x\(Hex.word(reservedBits))") }
        return parts.isEmpty ? "disabled" : parts.joined(separator: "+")
    }
}
