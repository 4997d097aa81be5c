/// A 24-bit unsigned integer, as used by PLX status fields and IEEE-11073 FLOAT mantissas.
///
/// Stored in a `UInt32` whose top byte is always zero.
public struct UInt24: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The largest value a 24-bit unsigned field holds, 16 777 215.
    public static let max = UInt24(truncatingIfNeeded: 0xFF_FFFF)
    /// Zero.
    public static let min = UInt24(truncatingIfNeeded: 0)

    /// The value, always in `0...0xFFFFFF`.
    public let value: UInt32

    /// Keeps the low 24 bits of `value`.
    @inlinable
    public init(truncatingIfNeeded value: UInt32) {
        self.value = value & 0xFF_FFFF
    }

    /// Nil when `value` does not fit in 24 bits.
    @inlinable
    public init?(exactly value: some BinaryInteger) {
        guard value >= 0, value <= 0xFF_FFFF else { return nil }
        self.value = UInt32(truncatingIfNeeded: value)
    }

    /// An integer literal; literals that do not fit keep their low 24 bits.
    public init(integerLiteral value: UInt32) {
        self.init(truncatingIfNeeded: value)
    }

    /// Compares the numeric values.
    public static func < (lhs: UInt24, rhs: UInt24) -> Bool { lhs.value < rhs.value }
    /// The value in decimal, e.g. `70000`.
    public var description: String { value.description }
}

/// A 24-bit two's-complement integer, as used by IEEE-11073 FLOAT mantissas.
public struct Int24: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The largest value, 8 388 607.
    public static let max = Int24(truncatingIfNeeded: 0x7F_FFFF)
    /// The smallest value, −8 388 608.
    public static let min = Int24(truncatingIfNeeded: -0x80_0000)

    /// The value, always in `-0x800000...0x7FFFFF`.
    public let value: Int32

    /// Keeps the low 24 bits of `value`, sign-extended.
    @inlinable
    public init(truncatingIfNeeded value: Int32) {
        self.value = (value << 8) >> 8
    }

    /// The signed reading of a 24-bit pattern.
    @inlinable
    public init(bitPattern: UInt24) {
        self.value = Int32(bitPattern: bitPattern.value << 8) >> 8
    }

    /// Nil when `value` does not fit in 24 bits.
    @inlinable
    public init?(exactly value: some BinaryInteger) {
        guard value >= -0x80_0000, value <= 0x7F_FFFF else { return nil }
        self.value = Int32(truncatingIfNeeded: value)
    }

    /// An integer literal; literals outside the 24-bit range keep their low 24 bits.
    public init(integerLiteral value: Int32) {
        self.init(truncatingIfNeeded: value)
    }

    /// The 24-bit two's-complement pattern of the value.
    @inlinable
    public var bitPattern: UInt24 { UInt24(truncatingIfNeeded: UInt32(bitPattern: value)) }

    /// Compares the signed numeric values.
    public static func < (lhs: Int24, rhs: Int24) -> Bool { lhs.value < rhs.value }
    /// The value in decimal, with a minus sign when negative, e.g. `-2`.
    public var description: String { value.description }
}
