/// What an IEEE-11073 number holds: a finite decimal, or one of the five special values.
public enum MedicalFloatKind: Hashable, Sendable {
    /// `mantissa × 10^exponent`.
    case finite(mantissa: Int32, exponent: Int8)
    /// Not a Number (`0x07FF` / `0x007FFFFF`).
    case nan
    /// Not at this Resolution: the value exists but can't be shown with the available digits.
    case nres
    /// Positive infinity.
    case positiveInfinity
    /// Negative infinity.
    case negativeInfinity
    /// The pattern reserved for future use.
    case reserved

    /// The spelling used in JSON output and logs: `NaN`, `NRes`, `+INF`, `-INF`, `reserved`,
    /// or nil for a finite number.
    public var specialName: String? {
        switch self {
        case .finite: nil
        case .nan: "NaN"
        case .nres: "NRes"
        case .positiveInfinity: "+INF"
        case .negativeInfinity: "-INF"
        case .reserved: "reserved"
        }
    }
}

/// Shared arithmetic of SFLOAT and FLOAT: a decimal mantissa of `mantissaBits` bits and a
/// power-of-ten exponent.
@usableFromInline
internal enum MedicalFloatMath {
    /// 10^k for 0 ≤ k ≤ 308, each the Double nearest the exact power (exact up to 10^22).
    @usableFromInline
    static let powers: [Double] = (0...308).map { Double("1e\($0)") ?? .infinity }

    /// 10^k for k ≥ 0 as the nearest Double; infinity past 10^308.
    @usableFromInline
    static func power10(_ k: Int) -> Double {
        k < powers.count ? powers[Swift.max(0, k)] : .infinity
    }

    /// `mantissa × 10^exponent` as the nearest Double, so every encoding of one number (`101e-1`,
    /// `1010e-2`) gives the same Double and values such as 37.6 come out as the literal `37.6`.
    @usableFromInline
    static func value(mantissa: Int32, exponent: Int8) -> Double {
        let m = Double(mantissa)
        let e = Int(exponent)
        // With |e| ≤ 22 both operands are exact, so one IEEE operation rounds correctly.
        if (0...22).contains(e) { return m * powers[e] }
        if (-22 ... -1).contains(e) { return m / powers[-e] }
        // Beyond that 10^|e| is itself rounded; let the decimal parser round the product once.
        return Double("\(mantissa)e\(e)") ?? (e > 0 ? m * power10(e) : m / power10(-e))
    }

    /// The representation of `value` with the given limits.
    ///
    /// An exact representation wins when one exists (the one with the shortest mantissa);
    /// otherwise the nearest representable value, halfway cases rounding away from zero.
    /// Mantissas run from `-(maxMantissa + 1)` to `maxMantissa`, except at exponent 0 where the
    /// patterns near the limits spell the special values and only `±maxMantissaAtExponentZero` are
    /// numbers. Returns nil when `value` is beyond the largest finite value.
    static func encode(
        _ value: Double, maxMantissa: Int64, maxMantissaAtExponentZero: Int64, exponents: ClosedRange<Int>
    ) -> (mantissa: Int64, exponent: Int)? {
        if value == 0 { return (0, 0) }
        let minMantissa = -maxMantissa - 1
        // Beyond the largest finite value by half a step or more: overflow, as in IEEE 754.
        let largest = value < 0 ? Double(-minMantissa) : Double(maxMantissa)
        let top = exponents.upperBound
        let topScale = top >= 0 ? power10(top) : 1 / power10(-top)
        if value.magnitude >= (largest + 0.5) * topScale { return nil }
        var best: (mantissa: Int64, exponent: Int, error: Double, magnitude: Double)?
        // Scan from the largest exponent down so the first exact hit has the shortest mantissa.
        for exponent in exponents.reversed() {
            let scaled = exponent >= 0 ? value / power10(exponent) : value * power10(-exponent)
            guard scaled.magnitude < 1e15 else { continue }
            let upper = exponent == 0 ? maxMantissaAtExponentZero : maxMantissa
            let lower = exponent == 0 ? -maxMantissaAtExponentZero : minMantissa
            let mantissa = Swift.min(Swift.max(Int64(scaled.rounded(.toNearestOrAwayFromZero)), lower), upper)
            let represented = Self.value(mantissa: Int32(mantissa), exponent: Int8(exponent))
            let error = (represented - value).magnitude
            if error == 0, mantissa != 0 { return (mantissa, exponent) }
            if let current = best {
                let better =
                    error < current.error
                    || (error == current.error && represented.magnitude > current.magnitude)
                if !better { continue }
            }
            best = (mantissa, exponent, error, represented.magnitude)
        }
        guard let best else { return nil }
        if best.mantissa == 0 { return (0, 0) }
        return (best.mantissa, best.exponent)
    }
}

/// IEEE-11073-20601 16-bit SFLOAT: a 12-bit signed mantissa and a 4-bit signed power-of-ten
/// exponent, used by Blood Pressure, Glucose, PLX and other medical characteristics.
///
/// Equality compares wire patterns: `101×10⁻¹` and `1010×10⁻²` are both 10.1 but not `==`; compare
/// ``doubleValue`` for numeric equality. Decoding accepts every pattern, normalised or not.
public struct MedicalFloat16: Hashable, Sendable, CustomStringConvertible, ByteCodable {
    /// The 16-bit wire pattern.
    public var bitPattern: UInt16

    /// Not a Number.
    public static let nan = MedicalFloat16(bitPattern: 0x07FF)
    /// Not at this resolution.
    public static let nres = MedicalFloat16(bitPattern: 0x0800)
    /// Positive infinity.
    public static let positiveInfinity = MedicalFloat16(bitPattern: 0x07FE)
    /// Negative infinity.
    public static let negativeInfinity = MedicalFloat16(bitPattern: 0x0802)
    /// Reserved for future use.
    public static let reserved = MedicalFloat16(bitPattern: 0x0801)

    /// Largest mantissa magnitude usable for a finite value.
    public static let maxMantissa: Int32 = 2047

    /// An SFLOAT from its 16 bits: a 4-bit exponent over a 12-bit mantissa.
    @inlinable
    public init(bitPattern: UInt16) { self.bitPattern = bitPattern }

    /// `mantissa × 10^exponent`; nil when the mantissa is outside −2048…2047, the exponent outside
    /// −8…7, or the pair spells one of the special values.
    public init?(mantissa: Int, exponent: Int) {
        guard (-2048...2047).contains(mantissa), (-8...7).contains(exponent) else { return nil }
        let pattern = UInt16(truncatingIfNeeded: exponent) << 12 | UInt16(truncatingIfNeeded: mantissa) & 0x0FFF
        self.bitPattern = pattern
        if case .finite = kind {} else { return nil }
    }

    /// The representation nearest `value` (exact when possible). NaN becomes ``nan``; infinities
    /// and values beyond ±2047×10⁷ become ``positiveInfinity`` / ``negativeInfinity``.
    public init(_ value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = value > 0 ? .positiveInfinity : .negativeInfinity; return }
        guard
            let (m, e) = MedicalFloatMath.encode(
                value, maxMantissa: 2047, maxMantissaAtExponentZero: 2045, exponents: -8...7)
        else { self = value > 0 ? .positiveInfinity : .negativeInfinity; return }
        self.bitPattern = UInt16(truncatingIfNeeded: e) << 12 | UInt16(truncatingIfNeeded: m) & 0x0FFF
    }

    /// The decoded form: a finite number or a special value.
    @inlinable
    public var kind: MedicalFloatKind {
        switch bitPattern {
        case 0x07FF: return .nan
        case 0x0800: return .nres
        case 0x07FE: return .positiveInfinity
        case 0x0802: return .negativeInfinity
        case 0x0801: return .reserved
        default:
            let exponent = Int8(truncatingIfNeeded: Int16(bitPattern: bitPattern) >> 12)
            let mantissa = Int32(Int16(bitPattern: bitPattern << 4) >> 4)
            return .finite(mantissa: mantissa, exponent: exponent)
        }
    }

    /// The value as a Double: NaN for NaN, NRes and reserved; ±infinity for the infinities.
    @inlinable
    public var doubleValue: Double {
        switch kind {
        case let .finite(mantissa, exponent): return MedicalFloatMath.value(mantissa: mantissa, exponent: exponent)
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .nan, .nres, .reserved: return .nan
        }
    }

    /// True for every pattern that is a number.
    @inlinable
    public var isFinite: Bool {
        if case .finite = kind { return true }
        return false
    }

    /// The decoded number (`72.5`), or the name of a special value: `NaN`, `NRes`, `+INF`, `-INF` or
    /// `reserved`.
    public var description: String { kind.specialName ?? "\(doubleValue)" }

    @inlinable @inline(__always)
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        bitPattern = try reader.read(UInt16.self, field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bitPattern)
    }
}

/// IEEE-11073-20601 32-bit FLOAT: a 24-bit signed mantissa and an 8-bit signed power-of-ten
/// exponent, used by Temperature Measurement among others.
///
/// Equality compares wire patterns; compare ``doubleValue`` for numeric equality.
public struct MedicalFloat32: Hashable, Sendable, CustomStringConvertible, ByteCodable {
    /// The 32-bit wire pattern.
    public var bitPattern: UInt32

    /// Not a Number.
    public static let nan = MedicalFloat32(bitPattern: 0x007F_FFFF)
    /// Not at this resolution.
    public static let nres = MedicalFloat32(bitPattern: 0x0080_0000)
    /// Positive infinity.
    public static let positiveInfinity = MedicalFloat32(bitPattern: 0x007F_FFFE)
    /// Negative infinity.
    public static let negativeInfinity = MedicalFloat32(bitPattern: 0x0080_0002)
    /// Reserved for future use.
    public static let reserved = MedicalFloat32(bitPattern: 0x0080_0001)

    /// A FLOAT from its 32 bits: an 8-bit exponent over a 24-bit mantissa.
    @inlinable
    public init(bitPattern: UInt32) { self.bitPattern = bitPattern }

    /// `mantissa × 10^exponent`; nil when either is out of range or the pair spells a special value.
    public init?(mantissa: Int, exponent: Int) {
        guard (-0x80_0000...0x7F_FFFF).contains(mantissa), (-128...127).contains(exponent) else { return nil }
        self.bitPattern =
            UInt32(UInt8(truncatingIfNeeded: exponent)) << 24
            | UInt32(truncatingIfNeeded: mantissa) & 0xFF_FFFF
        if case .finite = kind {} else { return nil }
    }

    /// The representation nearest `value` (exact when possible). NaN becomes ``nan``; infinities
    /// and values beyond the largest finite FLOAT become the infinities.
    public init(_ value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = value > 0 ? .positiveInfinity : .negativeInfinity; return }
        // Zero has no binary exponent to estimate a decimal one from (`0.0.exponent` is Int.min).
        if value == 0 { self.bitPattern = 0; return }
        // Only exponents near the value's own magnitude can matter; keep the search short.
        let magnitude = Int(value.magnitude.exponent) * 30103 / 100000  // ≈ log10(|value|)
        let low = Swift.max(-128, magnitude - 9), high = Swift.min(127, magnitude + 2)
        guard low <= high,
            let (m, e) = MedicalFloatMath.encode(
                value, maxMantissa: 0x7F_FFFF, maxMantissaAtExponentZero: 0x7F_FFFD, exponents: low...high)
        else {
            self = magnitude < 0 ? MedicalFloat32(bitPattern: 0) : (value > 0 ? .positiveInfinity : .negativeInfinity)
            return
        }
        self.bitPattern = UInt32(UInt8(truncatingIfNeeded: e)) << 24 | UInt32(truncatingIfNeeded: m) & 0xFF_FFFF
    }

    /// The decoded form: a finite number or a special value.
    @inlinable
    public var kind: MedicalFloatKind {
        switch bitPattern {
        case 0x007F_FFFF: return .nan
        case 0x0080_0000: return .nres
        case 0x007F_FFFE: return .positiveInfinity
        case 0x0080_0002: return .negativeInfinity
        case 0x0080_0001: return .reserved
        default:
            let exponent = Int8(truncatingIfNeeded: bitPattern >> 24)
            let mantissa = Int32(bitPattern: bitPattern << 8) >> 8
            return .finite(mantissa: mantissa, exponent: exponent)
        }
    }

    /// The value as a Double: NaN for NaN, NRes and reserved; ±infinity for the infinities.
    @inlinable
    public var doubleValue: Double {
        switch kind {
        case let .finite(mantissa, exponent): return MedicalFloatMath.value(mantissa: mantissa, exponent: exponent)
        case .positiveInfinity: return .infinity
        case .negativeInfinity: return -.infinity
        case .nan, .nres, .reserved: return .nan
        }
    }

    /// True for every pattern that is a number.
    @inlinable
    public var isFinite: Bool {
        if case .finite = kind { return true }
        return false
    }

    /// The decoded number (`36.6`), or the name of a special value: `NaN`, `NRes`, `+INF`, `-INF` or
    /// `reserved`.
    public var description: String { kind.specialName ?? "\(doubleValue)" }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        bitPattern = try reader.read(UInt32.self, field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bitPattern)
    }
}
