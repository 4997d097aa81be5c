/// A Bluetooth UUID: a 16-bit or 32-bit SIG-assigned number or a full 128-bit UUID.
///
/// Every UUID is held as its 128-bit value; short forms are expanded over the Bluetooth base
/// UUID `0000xxxx-0000-1000-8000-00805F9B34FB`, so `"180D"` and
/// `"0000180D-0000-1000-8000-00805F9B34FB"` are the same UUID, as in CoreBluetooth.
///
/// Text: parsing accepts `180D`, `0x180D`, `0000180D`, and the 36-character form, in any case.
/// Printing gives 4 upper-case hex digits for 16-bit SIG UUIDs, 8 for 32-bit ones, and the
/// canonical upper-case 36-character form otherwise.
public struct BluetoothUUID: Hashable, Comparable, Sendable, CustomStringConvertible, LosslessStringConvertible,
    ExpressibleByStringLiteral, ByteCodable, Codable
{
    /// The most significant 64 bits (the first 16 hex digits of the text form).
    public let high: UInt64
    /// The least significant 64 bits.
    public let low: UInt64

    /// The low 64 bits of the Bluetooth base UUID, `8000-00805F9B34FB`.
    public static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    /// The high 64 bits of the base UUID with the short-UUID field zeroed, `00000000-0000-1000`.
    public static let baseHigh: UInt64 = 0x0000_0000_0000_1000

    /// A UUID from its 128-bit value, most significant half first.
    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit SIG UUID such as `0x180D` (Heart Rate service).
    @inlinable
    public init(_ short: UInt16) {
        self.init(high: Self.baseHigh | UInt64(short) << 32, low: Self.baseLow)
    }

    /// A 32-bit SIG UUID.
    @inlinable
    public init(uuid32: UInt32) {
        self.init(high: Self.baseHigh | UInt64(uuid32) << 32, low: Self.baseLow)
    }

    /// A UUID from 16 bytes in text order (most significant first); nil unless exactly 16 bytes.
    public init?(bigEndianBytes bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// True when the UUID lies on the Bluetooth base UUID (a 16- or 32-bit SIG number).
    @inlinable
    public var isSIGAssigned: Bool { low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHigh }

    /// The 16-bit form, when this is a 16-bit SIG UUID.
    @inlinable
    public var uuid16: UInt16? {
        guard isSIGAssigned, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit form, when this is a SIG UUID (16-bit ones included).
    @inlinable
    public var uuid32: UInt32? {
        guard isSIGAssigned else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The shortest width, in bits, that carries this UUID: 16, 32 or 128.
    @inlinable
    public var bitWidth: Int { uuid16 != nil ? 16 : (uuid32 != nil ? 32 : 128) }

    /// The 16 bytes in text order (most significant first).
    public var bigEndianBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The full 36-character upper-case form, even for SIG UUIDs.
    public var canonicalString: String {
        let hex = bigEndianBytes.map { Hex.byte($0) }.joined()
        let chars = Array(hex)
        return String(chars[0..<8]) + "-" + String(chars[8..<12]) + "-" + String(chars[12..<16]) + "-"
            + String(chars[16..<20]) + "-" + String(chars[20..<32])
    }

    /// The text form CoreBluetooth prints: `180D`, an 8-digit 32-bit form, or the canonical form.
    public var uuidString: String {
        if let short = uuid16 { return Hex.byte(UInt8(short >> 8)) + Hex.byte(UInt8(short & 0xFF)) }
        if let short = uuid32 {
            return (0..<4).map { Hex.byte(UInt8(truncatingIfNeeded: short >> (24 - 8 * $0))) }.joined()
        }
        return canonicalString
    }

    /// The same text as ``uuidString``: `180D` for a 16-bit SIG UUID, eight hex digits for a 32-bit one,
    /// the dashed 36-character form for any other.
    public var description: String { uuidString }

    /// Parses `180D`, `0x180D`, an 8-digit 32-bit form or the 36-character form (with or without
    /// dashes), in any case, ignoring surrounding white space. Nil for anything else.
    public init?(_ text: String) {
        var digits = Substring(text.trimmingSpaces)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        let isDashed = digits.count == 36
        if isDashed {
            let dashes = [8, 13, 18, 23]
            for (index, char) in digits.enumerated() where dashes.contains(index) != (char == "-") { return nil }
            digits = Substring(digits.filter { $0 != "-" })
        }
        var value: [UInt8] = []
        value.reserveCapacity(16)
        var pending: UInt8?
        for char in digits {
            guard let nibble = Hex.nibble(char) else { return nil }
            if let high = pending { value.append(high << 4 | nibble); pending = nil } else { pending = nibble }
        }
        guard pending == nil else { return nil }
        switch value.count {
        case 2: self.init(UInt16(value[0]) << 8 | UInt16(value[1]))
        case 4: self.init(uuid32: value.reduce(0) { $0 << 8 | UInt32($1) })
        case 16 where isDashed || digits.count == 32: self.init(bigEndianBytes: value)
        default: return nil
        }
    }

    /// A UUID written in source code, such as `"2A37"` or a 128-bit vendor UUID.
    ///
    /// A literal is part of the program, not input: an invalid one is a programmer error and
    /// stops the program with a message naming it. Use ``init(_:)-(String)`` for text from outside.
    public init(stringLiteral text: String) {
        guard let uuid = BluetoothUUID(text) else { preconditionFailure("invalid Bluetooth UUID literal \"\(text)\"") }
        self = uuid
    }

    /// Orders by the 128-bit value, so 16-bit SIG UUIDs sort by their short number.
    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    // MARK: Wire form

    /// Reads a UUID of `byteCount` bytes (2, 4 or 16), little-endian as ATT and advertising data
    /// carry them.
    public static func read(from reader: inout ByteReader, byteCount: Int, field: String) throws(ByteDecodingError) -> BluetoothUUID {
        let start = reader.offset
        switch byteCount {
        case 2: return BluetoothUUID(try reader.read(UInt16.self, field: field))
        case 4: return BluetoothUUID(uuid32: try reader.read(UInt32.self, field: field))
        case 16:
            // Claim all 16 bytes first so a short input is reported as one 16-byte field.
            var uuid = try reader.subReader(count: 16, field: field)
            let low = try uuid.read(UInt64.self, field: field)
            let high = try uuid.read(UInt64.self, field: field)
            return BluetoothUUID(high: high, low: low)
        default:
            throw reader.invalidValue("a UUID is 2, 4 or 16 bytes, not \(byteCount)", field: field, at: start)
        }
    }

    /// Writes the UUID little-endian in `byteCount` bytes (2, 4 or 16); throws when the UUID does
    /// not fit (a vendor UUID in 2 bytes, say).
    public func write(to writer: inout ByteWriter, byteCount: Int) throws(ByteEncodingError) {
        switch byteCount {
        case 2:
            guard let short = uuid16 else { throw ByteEncodingError(field: "uuid", detail: "\(self) is not a 16-bit UUID") }
            writer.write(short)
        case 4:
            guard let short = uuid32 else { throw ByteEncodingError(field: "uuid", detail: "\(self) is not a 32-bit UUID") }
            writer.write(short)
        case 16:
            writer.write(low)
            writer.write(high)
        default:
            throw ByteEncodingError(field: "uuid", detail: "a UUID is 2, 4 or 16 bytes, not \(byteCount)")
        }
    }

    /// Reads a UUID filling the rest of the value: 2, 4 or 16 bytes.
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = try Self.read(from: &reader, byteCount: reader.remainingCount, field: "uuid")
    }

    /// Writes the shortest form: 2 bytes for 16-bit SIG UUIDs, 4 for 32-bit, else 16.
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try write(to: &writer, byteCount: bitWidth / 8)
    }

    // MARK: Codable (as the text form)

    /// Reads the UUID from a single JSON (or other `Codable`) string in any form ``init(_:)-(String)``
    /// accepts; throws `DecodingError.dataCorrupted` for any other text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let uuid = BluetoothUUID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid Bluetooth UUID \"\(text)\""))
        }
        self = uuid
    }

    /// Writes the UUID as a single string in its shortest text form (``uuidString``), such as `"180D"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines (no Foundation needed).
    @usableFromInline
    internal var trimmingSpaces: Substring {
        // `isWhitespace` also covers "\r\n", which is one Character and equals neither "\r" nor "\n".
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
