import HaraldCodec

/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// Stored and printed most significant byte first (`C0:00:00:00:00:01`); HCI carries it least
/// significant byte first, which ``init(from:)`` and ``encode(to:)`` handle.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible, ByteCodable {
    /// The six bytes, most significant first (as printed).
    public let bytes: [UInt8]

    /// An address from six bytes, most significant first; nil unless exactly six bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Parses `C0:00:00:00:00:01` (colons or dashes, any case); nil if malformed.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var parsed: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            parsed.append(byte)
        }
        bytes = parsed
    }

    /// The address 00:00:00:00:00:00.
    public static let zero = BluetoothAddress(uncheckedBytes: [0, 0, 0, 0, 0, 0])

    init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    /// The bytes in HCI order (least significant first).
    public var littleEndianBytes: [UInt8] { bytes.reversed() }

    /// True when the two top bits are 11: the form of a static random address.
    public var isStaticRandom: Bool { bytes[0] & 0xC0 == 0xC0 }

    public var description: String { bytes.map(hexByte).joined(separator: ":") }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        bytes = try reader.readBytes(count: 6, field: "address").reversed()
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bytes: littleEndianBytes)
    }

    /// A static random address (top two bits 11) from a random number generator.
    public static func randomStatic<G: RandomNumberGenerator>(using generator: inout G) -> BluetoothAddress {
        var value = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
        value[0] |= 0xC0
        if value[1...].allSatisfy({ $0 == 0xFF }) { value[5] = 0xFE }  // all-ones is not allowed
        return BluetoothAddress(uncheckedBytes: value)
    }
}

/// Which kind of address an LE device uses, as HCI codes it.
public enum LEAddressType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A public (IEEE-assigned) device address.
    case `public` = 0x00
    /// A random device address (static, or a private one).
    case random = 0x01
    /// A public identity address resolved by the controller from a private address.
    case publicIdentity = 0x02
    /// A static random identity address resolved by the controller from a private address.
    case randomIdentity = 0x03
    /// No address was sent (anonymous extended advertising).
    case anonymous = 0xFF

    /// The address type as apps see it: public identities are public, everything else random.
    public var isPublic: Bool { self == .public || self == .publicIdentity }

    public var description: String {
        switch self {
        case .public: return "public"
        case .random: return "random"
        case .publicIdentity: return "public-identity"
        case .randomIdentity: return "random-identity"
        case .anonymous: return "anonymous"
        }
    }

    /// Reads the type byte; unknown codes are a decoding error.
    static func read(from reader: inout ByteReader, field: String) throws(ByteDecodingError) -> LEAddressType {
        let start = reader.offset
        let raw = try reader.read(UInt8.self, field: field)
        guard let type = LEAddressType(rawValue: raw) else {
            throw reader.invalidValue("unknown address type 0x\(hexByte(raw))", field: field, at: start)
        }
        return type
    }
}

/// An LE device address with its type: what identifies a peer for connecting.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var type: LEAddressType

    public init(_ address: BluetoothAddress, type: LEAddressType) {
        self.address = address
        self.type = type
    }

    public var description: String { "\(address) (\(type))" }
}
