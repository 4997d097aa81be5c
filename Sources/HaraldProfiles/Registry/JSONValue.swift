import HaraldCodec

/// A JSON tree: what a characteristic value looks like on `harald decode`'s output and in logs.
///
/// Integers and fractional numbers are kept apart so that counts print as `85`, not `85.0`.
/// ``jsonText`` writes compact JSON with keys sorted, so the same value always prints the same.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A whole number, printed without a fraction.
    case integer(Int64)
    /// A fractional number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; printed with its keys sorted.
    case object([String: JSONValue])

    // MARK: Building

    /// An object from key/value pairs, leaving out the pairs whose value is nil (absent optional
    /// fields).
    public static func fields(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (key, value) in pairs { if let value { object[key] = value } }
        return .object(object)
    }

    /// An integer; values beyond `Int64` become a (rounded) number.
    public static func int(_ value: some BinaryInteger) -> JSONValue {
        if let exact = Int64(exactly: value) { return .integer(exact) }
        return .number(Double(value))
    }

    /// A fractional number; NaN and the infinities, which JSON cannot spell, become strings.
    public static func double(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value > 0 ? "+INF" : "-INF") }
        return .number(value)
    }

    /// An IEEE-11073 SFLOAT: its value, or the special value's name (`NaN`, `NRes`, `+INF`,
    /// `-INF`, `reserved`).
    public static func medical(_ value: MedicalFloat16) -> JSONValue {
        value.kind.specialName.map(JSONValue.string) ?? .number(value.doubleValue)
    }

    /// An IEEE-11073 FLOAT: its value, or the special value's name.
    public static func medical(_ value: MedicalFloat32) -> JSONValue {
        value.kind.specialName.map(JSONValue.string) ?? .number(value.doubleValue)
    }

    // MARK: Reading

    /// The member named `key` of an object; nil for other values and missing keys.
    public subscript(key: String) -> JSONValue? {
        if case let .object(members) = self { return members[key] }
        return nil
    }

    /// The value as a Double when it is a number of either kind.
    public var doubleValue: Double? {
        switch self {
        case let .integer(value): Double(value)
        case let .number(value): value
        default: nil
        }
    }

    // MARK: Text

    /// Compact JSON text with object keys sorted.
    public var jsonText: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// The compact JSON text with keys sorted, as ``jsonText`` gives it, e.g.
    /// `{"a":1,"b":[2.5,null]}`.
    public var description: String { jsonText }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case let .bool(value): text += value ? "true" : "false"
        case let .integer(value): text += String(value)
        case let .number(value):
            if !value.isFinite {
                text += "null"
            } else if value == value.rounded(), value.magnitude < 1e15 {
                text += String(Int64(value))
            } else {
                text += "\(value)"
            }
        case let .string(value): Self.writeString(value, to: &text)
        case let .array(values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case let .object(members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.writeString(key, to: &text)
                text += ":"
                members[key]!.write(to: &text)
            }
            text += "}"
        }
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    // MARK: Codable

    /// Reads any JSON value; a whole number that fits in `Int64` becomes ``integer(_:)``, any other
    /// number ``number(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value as the JSON it stands for, integers without a fraction.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .integer(value): try container.encode(value)
        case let .number(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }
}
