import HaraldCodec

/// The Measurement Status field of Blood Pressure Measurement (u16): what went wrong while
/// measuring. Bits 6…15 are reserved and kept as received.
public struct BloodPressureMeasurementStatus: Hashable, Sendable, CustomStringConvertible {
    /// The single-bit conditions.
    public enum Bit: Int, FlagBit {
        /// Status bits 0–2 and 5: body movement, cuff too loose, irregular pulse, improper measurement position.
        case bodyMovementDetected = 0, cuffTooLoose = 1, irregularPulseDetected = 2, improperMeasurementPosition = 5
    }

    /// Bits 3-4: the pulse rate against the device's limits.
    public enum PulseRateRange: UInt16, Hashable, Sendable {
        /// 0 within range, 1 above the upper limit, 2 below the lower limit, 3 reserved.
        case withinRange = 0, exceedsUpperLimit = 1, belowLowerLimit = 2, reserved = 3
    }

    /// Every bit of the field.
    public var flags: Flags<Bit, UInt16>

    /// The status from the 16-bit field as sent.
    @inlinable
    public init(rawValue: UInt16) { flags = Flags(rawValue: rawValue) }

    /// The field's raw value.
    @inlinable
    public var rawValue: UInt16 { flags.rawValue }

    /// Whether a single-bit condition is set.
    @inlinable
    public func contains(_ bit: Bit) -> Bool { flags.contains(bit) }

    /// The pulse-rate range detection (bits 3-4).
    public var pulseRateRange: PulseRateRange {
        get { PulseRateRange(rawValue: flags.field(bits: 3...4)) ?? .reserved }
        set { flags.setField(bits: 3...4, to: newValue.rawValue) }
    }

    /// The names of the conditions that are set, then the pulse-rate range, e.g.
    /// `["bodyMovementDetected", "pulseRate withinRange"]`.
    public var description: String { "\(flags.bits.map { "\($0)" } + ["pulseRate \(pulseRateRange)"])" }
}
