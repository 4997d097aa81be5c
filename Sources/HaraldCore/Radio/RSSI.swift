/// Received signal strength, in dBm, as a controller or CoreBluetooth measures it.
///
/// An unknown strength is `nil` (`RSSI?`), never a sentinel: HCI reports 127 ("not available")
/// and CoreBluetooth 127 as well; both become nil at the edge of Harald.
public struct RSSI: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The strength in dBm (typically −100…−30; HCI's range is −127…+20).
    public let dBm: Int8

    /// A strength in dBm.
    public init(dBm: Int8) { self.dBm = dBm }

    /// A strength from an integer in dBm; nil outside −127…126 (127 means "not available").
    public init?<Integer: BinaryInteger>(dBm: Integer) {
        guard let value = Int8(exactly: dBm), value != 127 else { return nil }
        self.dBm = value
    }

    /// An HCI RSSI byte: nil for 127, which HCI uses for "not available".
    public init?(hciValue: Int8) {
        guard hciValue != 127 else { return nil }
        dBm = hciValue
    }

    /// A signal strength written as its dBm literal, e.g. `-58`.
    public init(integerLiteral value: Int8) { dBm = value }

    /// Weaker before stronger: compares the strengths in dBm.
    public static func < (lhs: RSSI, rhs: RSSI) -> Bool { lhs.dBm < rhs.dBm }

    /// `-58 dBm`.
    public var description: String { "\(dBm) dBm" }
}

/// Coded as its dBm integer (`-58`). 127, which HCI and CoreBluetooth use for "not available",
/// is not a strength: encoding it throws, and so does decoding it or anything outside Int8.
extension RSSI: Codable {
    /// Reads the strength from an integer in dBm (−128…126).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(Int.self)
        guard let rssi = RSSI(dBm: value) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) dBm is not a strength (−128…126)")
        }
        self = rssi
    }

    /// Writes the strength as its integer in dBm, e.g. `-58`.
    public func encode(to encoder: any Encoder) throws {
        guard dBm != 127 else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "127 means not available"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(Int(dBm))
    }
}
