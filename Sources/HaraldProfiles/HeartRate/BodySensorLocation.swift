import HaraldCodec

/// Body Sensor Location (0x2A38): where a heart-rate sensor is worn.
///
/// Codes 7…255 are reserved; they decode to ``reserved(_:)`` rather than failing, so a newer
/// sensor still shows its (unnamed) location.
public enum BodySensorLocation: CharacteristicValue {
    /// Body Sensor Location codes 0–6: other, chest, wrist, finger, hand, ear lobe, foot.
    case other, chest, wrist, finger, hand, earLobe, foot
    /// A code the specification reserves (7…255), as received.
    case reserved(UInt8)

    public static let uuid = BluetoothUUID(0x2A38)
    public static let name = "Body Sensor Location"

    /// The location for a wire code.
    public init(code: UInt8) {
        switch code {
        case 0: self = .other
        case 1: self = .chest
        case 2: self = .wrist
        case 3: self = .finger
        case 4: self = .hand
        case 5: self = .earLobe
        case 6: self = .foot
        default: self = .reserved(code)
        }
    }

    /// The wire code.
    public var code: UInt8 {
        switch self {
        case .other: 0
        case .chest: 1
        case .wrist: 2
        case .finger: 3
        case .hand: 4
        case .earLobe: 5
        case .foot: 6
        case let .reserved(code): code
        }
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self.init(code: try reader.read(UInt8.self, field: "location"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if case let .reserved(code) = self {
            try requireEncodable(code > 6, field: "location", "reserved code \(code) names a defined location")
        }
        writer.write(code)
    }

    /// The location's camelCase name, `reserved` for reserved codes.
    public var caseName: String {
        if case .reserved = self { return "reserved" }
        return "\(self)"
    }

    /// `{location: "earLobe", code: 5}`.
    public var jsonValue: JSONValue { .object(["location": .string(caseName), "code": .int(code)]) }
}
