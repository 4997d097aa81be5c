/// A named bit of a flags field. The raw value is the bit's position, 0 being the least
/// significant bit.
///
/// ```swift
/// enum HeartRateFlag: Int, FlagBit {
///     case valueIsUInt16 = 0, sensorContactDetected = 1, sensorContactSupported = 2
///     case energyExpendedPresent = 3, rrIntervalsPresent = 4
/// }
/// let flags = try reader.readFlags(HeartRateFlag.self, as: UInt8.self)
/// if flags.contains(.energyExpendedPresent) { … }
/// ```
public protocol FlagBit: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == Int {}

/// A flags field of `Raw`'s width, tested by named bits.
///
/// The raw value is kept whole, so bits that `Bit` does not name (reserved for future use, or
/// vendor extensions) are preserved when the field is read and written again.
public struct Flags<Bit: FlagBit, Raw: FixedWidthInteger & UnsignedInteger & Sendable>:
    RawRepresentable, Hashable, Sendable, ExpressibleByArrayLiteral, CustomStringConvertible
{
    /// Every bit of the field, named or not.
    public var rawValue: Raw

    /// The field exactly as it is on the wire, every bit kept (named, reserved or unknown).
    @inlinable
    public init(rawValue: Raw) { self.rawValue = rawValue }

    /// A field with exactly the given bits set.
    @inlinable
    public init<S: Sequence<Bit>>(_ bits: S) {
        rawValue = 0
        for bit in bits { insert(bit) }
    }

    /// A field with the listed bits set, as in `[.sensorContactSupported, .rrIntervalsPresent]`.
    public init(arrayLiteral elements: Bit...) { self.init(elements) }

    @inlinable
    internal static func mask(_ bit: Bit) -> Raw {
        // Smart shift: a position past the field's width yields 0 instead of trapping.
        (1 as Raw) << bit.rawValue
    }

    /// Whether `bit` is set. A position outside the field is never set.
    @inlinable
    public func contains(_ bit: Bit) -> Bool {
        bit.rawValue >= 0 && rawValue & Self.mask(bit) != 0
    }

    /// Sets `bit`. A position outside the field is ignored.
    @inlinable
    public mutating func insert(_ bit: Bit) {
        guard bit.rawValue >= 0 else { return }
        rawValue |= Self.mask(bit)
    }

    /// Clears `bit`.
    @inlinable
    public mutating func remove(_ bit: Bit) {
        guard bit.rawValue >= 0 else { return }
        rawValue &= ~Self.mask(bit)
    }

    /// Reads or writes one named bit.
    @inlinable
    public subscript(bit: Bit) -> Bool {
        get { contains(bit) }
        set { if newValue { insert(bit) } else { remove(bit) } }
    }

    /// The named bits that are set, in declaration order.
    public var bits: [Bit] { Bit.allCases.filter { contains($0) } }

    /// The set bits that `Bit` has no name for.
    @inlinable
    public var unknownBits: Raw {
        var known: Raw = 0
        for bit in Bit.allCases where bit.rawValue >= 0 { known |= Self.mask(bit) }
        return rawValue & ~known
    }

    /// A multi-bit sub-field, such as the two-bit sensor-contact status or the pulse-rate range
    /// of Blood Pressure's measurement status; positions outside the field read as zero.
    @inlinable
    public func field(bits positions: ClosedRange<Int>) -> Raw {
        guard positions.lowerBound >= 0 else { return 0 }
        let width = Self.width(of: positions)
        let shifted = rawValue >> positions.lowerBound
        let mask: Raw = width >= Raw.bitWidth ? ~0 : ((1 as Raw) << width) &- 1
        return shifted & mask
    }

    /// Writes a multi-bit sub-field; value bits that do not fit are dropped.
    @inlinable
    public mutating func setField(bits positions: ClosedRange<Int>, to value: Raw) {
        guard positions.lowerBound >= 0 else { return }
        let width = Self.width(of: positions)
        let mask: Raw = width >= Raw.bitWidth ? ~0 : ((1 as Raw) << width) &- 1
        rawValue = (rawValue & ~(mask << positions.lowerBound)) | ((value & mask) << positions.lowerBound)
    }

    /// The number of bits in `positions`, capped at the field's width; `positions.count` would
    /// overflow for a range such as `0...Int.max`. Callers have checked `lowerBound >= 0`.
    @inlinable
    internal static func width(of positions: ClosedRange<Int>) -> Int {
        Swift.min(positions.upperBound - positions.lowerBound, Raw.bitWidth) + 1
    }

    /// The names of the set bits in brackets, then any set bits that `Bit` does not name as one hex
    /// mask, e.g. `[sensorContactDetected, rrIntervalsPresent, unknown 0x80]`; `[]` when none is set.
    public var description: String {
        var parts = bits.map { "\($0)" }
        let unknown = unknownBits
        if unknown != 0 { parts.append("unknown 0x" + String(unknown, radix: 16, uppercase: true)) }
        return "[" + parts.joined(separator: ", ") + "]"
    }
}
