import HaraldCodec
import HaraldCore

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

    /// The kind of the address this code announces.
    public var kind: BluetoothAddress.Kind { isPublic ? .public : .random }

    /// The code for an address of `kind`.
    public init(_ kind: BluetoothAddress.Kind) { self = kind == .public ? .public : .random }

    /// `public`, `random`, `public-identity`, `random-identity` or `anonymous`.
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
            throw reader.invalidValue("unknown address type 0x\(Hex.byte(raw))", field: field, at: start)
        }
        return type
    }
}

extension BluetoothAddress {
    /// Reads an HCI address-type byte followed by a six-byte address.
    static func read(from reader: inout ByteReader, typeField: String, addressField: String) throws(ByteDecodingError) -> BluetoothAddress {
        let type = try LEAddressType.read(from: &reader, field: typeField)
        return try BluetoothAddress(from: &reader, kind: type.kind, field: addressField)
    }
}
