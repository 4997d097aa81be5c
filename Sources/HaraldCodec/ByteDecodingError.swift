/// Why a run of bytes could not be decoded into a value.
///
/// Every decoder in Harald reports bad input with this one type. It names the field that was
/// being read (a dotted path such as `timestamp.month` for nested values), the byte offset where
/// reading it started, and what was wrong. Decoding never traps: short, long or out-of-range input
/// always ends up here.
///
/// The description reads like
/// `HeartRateMeasurement: needs 2 bytes for 'energyExpended' at offset 2, 1 left`.
public struct ByteDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Hashable, Sendable {
        /// The field needs `needed` bytes but only `available` remain.
        case truncated(needed: Int, available: Int)
        /// The value was fully decoded but `count` bytes were left over.
        case trailingBytes(count: Int)
        /// The bytes are present but their value is not allowed (out of range, reserved code, …).
        case invalidValue(String)
        /// A text field is not valid UTF-8.
        case invalidUTF8
    }

    /// The type being decoded when the error happened, such as `HeartRateMeasurement`; empty when
    /// the error came from a bare reader call.
    public var typeName: String
    /// The field being read, as a dotted path for nested values.
    public var field: String
    /// Offset, in bytes from the start of the input, where the failing field starts.
    public var offset: Int
    /// What was wrong.
    public var reason: Reason

    /// An error about `field` of `typeName` at byte `offset` of the input.
    public init(typeName: String = "", field: String, offset: Int, reason: Reason) {
        self.typeName = typeName
        self.field = field
        self.offset = offset
        self.reason = reason
    }

    /// The type, the field, the byte offset and the problem, e.g.
    /// `HeartRateMeasurement: needs 2 bytes for 'energyExpended' at offset 2, 1 left` or
    /// `2 unexpected trailing bytes at offset 4`.
    public var description: String {
        let prefix = typeName.isEmpty ? "" : "\(typeName): "
        switch reason {
        case let .truncated(needed, available):
            let unit = needed == 1 ? "byte" : "bytes"
            return "\(prefix)needs \(needed) \(unit) for '\(field)' at offset \(offset), \(available) left"
        case let .trailingBytes(count):
            let unit = count == 1 ? "byte" : "bytes"
            return "\(prefix)\(count) unexpected trailing \(unit) at offset \(offset)"
        case let .invalidValue(detail):
            return "\(prefix)invalid '\(field)' at offset \(offset): \(detail)"
        case .invalidUTF8:
            return "\(prefix)'\(field)' at offset \(offset) is not valid UTF-8"
        }
    }

    /// The same error with `outer` prepended to the field path (`timestamp` + `month` →
    /// `timestamp.month`).
    public func nested(in outer: String) -> ByteDecodingError {
        var copy = self
        if outer.isEmpty { return copy }
        copy.field = field.isEmpty ? outer : "\(outer).\(field)"
        return copy
    }
}

/// Why a value could not be written as bytes (a field out of the range its wire format can hold).
public struct ByteEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field that could not be encoded.
    public var field: String
    /// What was wrong with it.
    public var detail: String

    /// An error about `field`: what about its value cannot be encoded.
    public init(field: String, detail: String) {
        self.field = field
        self.detail = detail
    }

    /// The field and why its value does not fit the wire format, e.g.
    /// `cannot encode 'parameters': 300 bytes, at most 255 fit a command`.
    public var description: String { "cannot encode '\(field)': \(detail)" }
}
