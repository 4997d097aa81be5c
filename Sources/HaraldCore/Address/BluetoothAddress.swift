import HaraldCodec

/// A 48-bit Bluetooth device address (BD_ADDR) and whether it is public or random.
///
/// Printed most significant byte first (`C0:00:00:00:00:01`); HCI and SMP carry it least
/// significant byte first, which `init(from:kind:)` and ``encode(to:)-(ByteWriter)`` handle. A random
/// address is one of three subtypes told apart by its two top bits (Core spec Vol 6 Part B
/// §1.3.2): static (`11`), resolvable private (`01`) and non-resolvable private (`00`).
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Public (IEEE-assigned) or random. The raw values are the HCI address-type codes.
    public enum Kind: UInt8, Hashable, Sendable, CustomStringConvertible {
        /// An IEEE-assigned public device address.
        case `public` = 0x00
        /// A random device address: static, resolvable private or non-resolvable private.
        case random = 0x01

        /// `public` or `random`.
        public var description: String { self == .public ? "public" : "random" }

        /// `public` or `random` (any case); nil for anything else.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "public": self = .public
            case "random": self = .random
            default: return nil
            }
        }
    }

    /// The subtype of a random address, from its two most significant bits.
    public enum RandomSubtype: Hashable, Sendable {
        /// Top bits `11`: stays the same for a power cycle or longer; an identity address.
        case `static`
        /// Top bits `01`: changes every few minutes; resolvable with the device's IRK.
        case resolvablePrivate
        /// Top bits `00`: changes often and cannot be resolved.
        case nonResolvablePrivate
        /// Top bits `10`: reserved by the Core spec.
        case reserved
    }

    /// The 48 bits of the address, most significant first as printed.
    public let value: UInt64
    /// Public or random.
    public let kind: Kind

    /// An address from its 48-bit value (higher bits must be zero); nil otherwise.
    public init?(value: UInt64, kind: Kind) {
        guard value >> 48 == 0 else { return nil }
        self.value = value
        self.kind = kind
    }

    /// An address from six bytes, most significant first; nil unless exactly six bytes.
    public init?<Bytes: Collection<UInt8>>(bytes: Bytes, kind: Kind) {
        guard bytes.count == 6 else { return nil }
        self.value = bytes.reduce(0) { ($0 << 8) | UInt64($1) }
        self.kind = kind
    }

    /// Parses `C0:00:00:00:00:01` (colons or dashes, any case); nil if malformed.
    ///
    /// The text may end in `/public` or `/random` (the form ``description`` prints), which then
    /// overrides `kind`.
    public init?(_ text: String, kind: Kind = .public) {
        var addressText = Substring(text)
        var kind = kind
        if let slash = text.lastIndex(of: "/") {
            guard let suffix = Kind(String(text[text.index(after: slash)...])) else { return nil }
            kind = suffix
            addressText = text[..<slash]
        }
        let parts = addressText.split(separator: ":", omittingEmptySubsequences: false)
        let dashed = addressText.split(separator: "-", omittingEmptySubsequences: false)
        let groups = parts.count == 6 ? parts : dashed
        guard groups.count == 6 else { return nil }
        var value: UInt64 = 0
        for group in groups {
            guard group.count == 2, group.allSatisfy(\.isHexDigit), let byte = UInt8(group, radix: 16) else { return nil }
            value = (value << 8) | UInt64(byte)
        }
        self.value = value
        self.kind = kind
    }

    /// The six bytes, most significant first (as printed).
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * (5 - $0))) } }

    /// The six bytes least significant first, as HCI and SMP carry them.
    public var littleEndianBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// The subtype of a random address; nil for a public one.
    public var randomSubtype: RandomSubtype? {
        guard kind == .random else { return nil }
        switch value >> 46 {
        case 0b11: return .static
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    /// True for a random address whose two top bits are `11`.
    public var isStaticRandom: Bool { randomSubtype == .static }

    /// True for a resolvable private address: its top 24 bits are `prand` and its low 24 bits
    /// the hash `ah(IRK, prand)` (Core spec Vol 3 Part H §2.2.2).
    public var isResolvablePrivate: Bool { randomSubtype == .resolvablePrivate }

    /// True when the address stays the same across connections: public or static random.
    public var isIdentity: Bool { kind == .public || isStaticRandom }

    /// The same 48 bits with another kind.
    public func with(kind: Kind) -> BluetoothAddress { BluetoothAddress(unchecked: value, kind: kind) }

    /// `C0:00:00:00:00:01`, without the kind.
    public var string: String { bytes.map(Hex.byte).joined(separator: ":") }

    /// `C0:00:00:00:00:01/random`: the address and its kind; ``init(_:kind:)`` reads it back.
    public var description: String { "\(string)/\(kind)" }

    /// Public addresses first, then by value.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        (lhs.kind.rawValue, lhs.value) < (rhs.kind.rawValue, rhs.value)
    }

    /// 00:00:00:00:00:00, public.
    public static let zero = BluetoothAddress(unchecked: 0, kind: .public)

    /// A static random address (top two bits 11, not all ones) from a random number generator.
    public static func randomStatic<G: RandomNumberGenerator>(using generator: inout G) -> BluetoothAddress {
        var value = UInt64.random(in: 0...0xFFFF_FFFF_FFFF, using: &generator) | (0b11 << 46)
        if value == 0xFFFF_FFFF_FFFF { value -= 1 }  // the random part must not be all ones
        return BluetoothAddress(unchecked: value, kind: .random)
    }

    init(unchecked value: UInt64, kind: Kind) {
        self.value = value
        self.kind = kind
    }

    /// Reads six bytes, least significant first, as an address of `kind`.
    public init(from reader: inout ByteReader, kind: Kind, field: String = "address") throws(ByteDecodingError) {
        let bytes = try reader.readBytes(count: 6, field: field)
        self.init(unchecked: bytes.reversed().reduce(0) { ($0 << 8) | UInt64($1) }, kind: kind)
    }

    /// Writes the six bytes, least significant first (the kind is not written).
    public func encode(to writer: inout ByteWriter) {
        writer.write(bytes: littleEndianBytes)
    }
}

// MARK: Codable

/// Coded as one string, the canonical text form ``description`` prints:
/// `"C0:00:00:00:00:01/random"`. Decoding requires the `/public` or `/random` suffix (without it
/// the kind would be a guess) and throws `DecodingError.dataCorrupted` for any other text.
extension BluetoothAddress: Codable {
    /// Reads an address from a single string such as `"C0:00:00:00:00:01/random"`; the kind suffix is
    /// required.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard text.contains("/"), let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an address such as C0:00:00:00:00:01/random")
        }
        self = address
    }

    /// Writes the address as a single string with its kind, the form ``description`` prints.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
