/// Hexadecimal text ↔ bytes, as tests, logs and the command line use it.
public enum Hex {
    /// Why a hex string could not be read.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Character offset of the problem in the input.
        public var offset: Int
        /// What was wrong.
        public var detail: String

        /// An error at character `offset` of the text.
        public init(offset: Int, detail: String) {
            self.offset = offset
            self.detail = detail
        }

        /// Where and why the text is not hex, e.g. `invalid hex at character 3: 'g' is not a hex digit`.
        public var description: String { "invalid hex at character \(offset): \(detail)" }
    }

    /// Reads hex text such as `"0c 99 01"`, `"0C9901"`, `"0x0c9901"` or `"0c:99:01"`.
    ///
    /// Digits may be in either case; white space (including `\r\n`), `:`, `-`, `_` and `,` between bytes
    /// are ignored, as is a leading `0x`. A byte split by a separator, any other character and an
    /// odd number of digits are errors.
    public static func decode(_ text: String) throws(ParseError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count / 2)
        var pending: UInt8?
        var pendingOffset = 0
        var characters = Array(text)
        var skip = 0
        if characters.count >= 2, characters[0] == "0", characters[1] == "x" || characters[1] == "X" {
            characters.removeFirst(2)
            skip = 2
        }
        for (index, char) in characters.enumerated() {
            if let nibble = nibble(char) {
                if let high = pending {
                    bytes.append(high << 4 | nibble)
                    pending = nil
                } else {
                    pending = nibble
                    pendingOffset = index + skip
                }
            } else if char.isWhitespace || char == ":" || char == "-"
                || char == "_" || char == ","
            {
                if pending != nil {
                    throw ParseError(offset: pendingOffset, detail: "a byte needs two hex digits")
                }
            } else {
                throw ParseError(offset: index + skip, detail: "'\(char)' is not a hex digit")
            }
        }
        if pending != nil { throw ParseError(offset: pendingOffset, detail: "a byte needs two hex digits") }
        return bytes
    }

    /// Hex text for `bytes`: lower-case, no separator unless one is given.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, separator: String = "", uppercase: Bool = false) -> String {
        bytes.map { uppercase ? byte($0) : byte($0).lowercased() }.joined(separator: separator)
    }

    /// Two upper-case hex digits (`0x0C` → `"0C"`), for descriptions and error messages.
    @inlinable
    public static func byte(_ value: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
    }

    /// Four upper-case hex digits, most significant first (`0x2A37` → `"2A37"`).
    @inlinable
    public static func word(_ value: UInt16) -> String {
        byte(UInt8(value >> 8)) + byte(UInt8(truncatingIfNeeded: value))
    }

    /// The value of one hex digit, or nil.
    @usableFromInline
    static func nibble(_ char: Character) -> UInt8? {
        guard let ascii = char.asciiValue else { return nil }
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Bytes to and from hex text.
extension Array where Element == UInt8 {
    /// Bytes from hex text; see ``Hex/decode(_:)`` for what is accepted.
    public init(hex text: String) throws(Hex.ParseError) {
        self = try Hex.decode(text)
    }

    /// The bytes as lower-case hex, no separators (`"0c9901"`).
    public var hexString: String { Hex.encode(self) }
}
