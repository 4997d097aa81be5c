import Foundation

/// A JSON value as a gateway publishes it. Written by Foundation's `JSONEncoder` with sorted keys,
/// so the same report always gives the same bytes (a consumer can compare payloads).
public enum JSONValue: Hashable, Sendable, Encodable {
    case string(String)
    /// A number; a value that is not finite is written as `null` (JSON has no NaN).
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .number(value):
            if value.isFinite {
                // Whole numbers as integers (-60, not -60.0); fractions as the shortest decimal.
                if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
            } else {
                try container.encodeNil()
            }
        case let .bool(value): try container.encode(value)
        case let .array(values): try container.encode(values)
        case let .object(members): try container.encode(members)
        case .null: try container.encodeNil()
        }
    }

    /// The UTF-8 bytes of this value.
    public var bytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a value built of these cases cannot fail: non-finite numbers are null.
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }
}
