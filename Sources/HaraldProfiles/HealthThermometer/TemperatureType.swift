import HaraldCodec

/// Temperature Type (0x2A1D): where a body temperature is taken. Also an optional field of
/// Temperature Measurement.
///
/// Codes 0 and 10…255 are reserved; they decode to ``reserved(_:)`` rather than failing, so the
/// measurement it came with is not lost.
public enum TemperatureType: CharacteristicValue {
    /// Temperature Type codes 1–9: armpit, body (general), ear lobe, finger, gastrointestinal tract, mouth, rectum, toe, ear drum.
    case armpit, body, ear, finger, gastrointestinalTract, mouth, rectum, toe, tympanum
    /// A reserved code, as received.
    case reserved(UInt8)

    public static let uuid = BluetoothUUID(0x2A1D)
    public static let name = "Temperature Type"

    /// The type for a wire code.
    @inlinable
    public init(code: UInt8) {
        switch code {
        case 1: self = .armpit
        case 2: self = .body
        case 3: self = .ear
        case 4: self = .finger
        case 5: self = .gastrointestinalTract
        case 6: self = .mouth
        case 7: self = .rectum
        case 8: self = .toe
        case 9: self = .tympanum
        default: self = .reserved(code)
        }
    }

    /// The wire code.
    @inlinable
    public var code: UInt8 {
        switch self {
        case .armpit: 1
        case .body: 2
        case .ear: 3
        case .finger: 4
        case .gastrointestinalTract: 5
        case .mouth: 6
        case .rectum: 7
        case .toe: 8
        case .tympanum: 9
        case let .reserved(code): code
        }
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self.init(code: try reader.read(UInt8.self, field: "temperatureType"))
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if case let .reserved(code) = self {
            try requireEncodable(code == 0 || code > 9, field: "temperatureType", "reserved code \(code) names a defined type")
        }
        writer.write(code)
    }

    /// The type's camelCase name, `reserved` for reserved codes.
    public var caseName: String {
        if case .reserved = self { return "reserved" }
        return "\(self)"
    }

    /// `{temperatureType: "ear", code: 3}`.
    public var jsonValue: JSONValue { .object(["temperatureType": .string(caseName), "code": .int(code)]) }
}
