import HaraldCodec

/// Characteristic Presentation Format descriptor (0x2904): how to show a characteristic's
/// value — its format, decimal exponent, unit and description. 7 bytes.
///
/// Format codes not in the table decode to ``Format/reserved(_:)``.
public struct CharacteristicPresentationFormat: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2904)
    public static let name = "Characteristic Presentation Format"

    /// The value's data type.
    public enum Format: Hashable, Sendable {
        /// Boolean and unsigned integers of 2 to 128 bits (format codes 0x01–0x0B).
        case boolean, uint2, uint4, uint8, uint12, uint16, uint24, uint32, uint48, uint64, uint128
        /// Signed integers of 8 to 128 bits (format codes 0x0C–0x13).
        case sint8, sint12, sint16, sint24, sint32, sint48, sint64, sint128
        /// IEEE-754 floats, IEEE-11073 SFLOAT and FLOAT, two UInt16s, UTF-8 and UTF-16 strings, opaque structures (0x14–0x1B).
        case float32, float64, sfloat, float, duint16, utf8s, utf16s, opaqueStructure
        /// A code the table does not name, as received.
        case reserved(UInt8)

        private static let named: [Format] = [
            .boolean, .uint2, .uint4, .uint8, .uint12, .uint16, .uint24, .uint32, .uint48, .uint64, .uint128,
            .sint8, .sint12, .sint16, .sint24, .sint32, .sint48, .sint64, .sint128,
            .float32, .float64, .sfloat, .float, .duint16, .utf8s, .utf16s, .opaqueStructure,
        ]

        /// The format for a wire code (0x01 boolean … 0x1B struct).
        public init(code: UInt8) {
            self = (1...27).contains(code) ? Self.named[Int(code) - 1] : .reserved(code)
        }

        /// The wire code.
        public var code: UInt8 {
            if case let .reserved(code) = self { return code }
            return UInt8(Self.named.firstIndex(of: self)! + 1)
        }

        /// The format's name (`uint16`, …, `reserved`).
        public var caseName: String {
            if case .reserved = self { return "reserved" }
            return "\(self)"
        }
    }

    /// The data type.
    public var format: Format
    /// Decimal exponent: the value shown is raw × 10^exponent (integer formats only).
    public var exponent: Int8
    /// The unit, a Bluetooth SIG unit UUID such as 0x272F (degrees Celsius).
    public var unit: UInt16
    /// The organisation that defines ``descriptionCode`` (1 = Bluetooth SIG).
    public var namespace: UInt8
    /// Which of several same-typed characteristics this is (Bluetooth SIG namespace: 0 unknown,
    /// 1 "first", …).
    public var descriptionCode: UInt16

    /// A format from its fields: the value is its integer times 10^`exponent`, in the SIG unit `unit` (0x27AD for percent, say).
    public init(format: Format, exponent: Int8 = 0, unit: UInt16 = 0x2700, namespace: UInt8 = 1, descriptionCode: UInt16 = 0) {
        self.format = format
        self.exponent = exponent
        self.unit = unit
        self.namespace = namespace
        self.descriptionCode = descriptionCode
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        format = Format(code: try reader.read(UInt8.self, field: "format"))
        exponent = try reader.read(Int8.self, field: "exponent")
        unit = try reader.read(UInt16.self, field: "unit")
        namespace = try reader.read(UInt8.self, field: "namespace")
        descriptionCode = try reader.read(UInt16.self, field: "description")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if case let .reserved(code) = format {
            try requireEncodable(!(1...27).contains(code), field: "format", "reserved code \(code) names a defined format")
        }
        writer.write(format.code)
        writer.write(exponent)
        writer.write(unit)
        writer.write(namespace)
        writer.write(descriptionCode)
    }

    /// `{format (name), formatCode, exponent, unit (UUID text), namespace, description}`.
    public var jsonValue: JSONValue {
        .object([
            "format": .string(format.caseName), "formatCode": .int(format.code), "exponent": .int(exponent),
            "unit": .string(BluetoothUUID(unit).uuidString), "namespace": .int(namespace),
            "description": .int(descriptionCode),
        ])
    }
}
