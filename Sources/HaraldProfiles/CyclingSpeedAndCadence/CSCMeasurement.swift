import HaraldCodec

/// Cycling Speed and Cadence Measurement (0x2A5B, notify): cumulative wheel and crank
/// revolutions with the time of the last event of each.
///
/// Wire form: flags (u8: bit 0 wheel data, bit 1 crank data), then wheel data (cumulative wheel
/// revolutions u32, last wheel event time u16 in 1/1024 s), then crank data (cumulative crank
/// revolutions u16, last crank event time u16 in 1/1024 s). Flag bits 2…7 are reserved and kept.
/// Speed and cadence need two measurements: see ``CyclingMotion``.
public struct CSCMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A5B)
    public static let name = "CSC Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 wheel revolution data present, 1 crank revolution data present.
        case wheelRevolutionDataPresent = 0, crankRevolutionDataPresent = 1
    }

    /// Wheel revolutions counted since the sensor started, and when the last one ended.
    public struct WheelData: Hashable, Sendable {
        /// Cumulative wheel revolutions (wraps at 2³²).
        public var cumulativeRevolutions: UInt32
        /// Time of the last wheel event, 1/1024 s (wraps every 64 s).
        public var lastEventTime: UInt16

        /// Wheel data; `lastEventTime` in units of 1/1024 s, wrapping at 64 s.
        @inlinable
        public init(cumulativeRevolutions: UInt32, lastEventTime: UInt16) {
            self.cumulativeRevolutions = cumulativeRevolutions
            self.lastEventTime = lastEventTime
        }
    }

    /// Crank revolutions counted since the sensor started, and when the last one ended.
    public struct CrankData: Hashable, Sendable {
        /// Cumulative crank revolutions (wraps at 2¹⁶).
        public var cumulativeRevolutions: UInt16
        /// Time of the last crank event, 1/1024 s (wraps every 64 s).
        public var lastEventTime: UInt16

        /// Crank data; `lastEventTime` in units of 1/1024 s, wrapping at 64 s.
        @inlinable
        public init(cumulativeRevolutions: UInt16, lastEventTime: UInt16) {
            self.cumulativeRevolutions = cumulativeRevolutions
            self.lastEventTime = lastEventTime
        }
    }

    /// Wheel data, when the sensor measures speed.
    public var wheel: WheelData?
    /// Crank data, when the sensor measures cadence.
    public var crank: CrankData?
    /// Flag bits 2…7 as received.
    public var reservedFlags: UInt8

    /// A measurement with the wheel data, the crank data, or both.
    public init(wheel: WheelData? = nil, crank: CrankData? = nil) {
        self.wheel = wheel
        self.crank = crank
        self.reservedFlags = 0
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        if flags.contains(.wheelRevolutionDataPresent) {
            wheel = WheelData(
                cumulativeRevolutions: try reader.read(UInt32.self, field: "cumulativeWheelRevolutions"),
                lastEventTime: try reader.read(UInt16.self, field: "lastWheelEventTime"))
        } else {
            wheel = nil
        }
        if flags.contains(.crankRevolutionDataPresent) {
            crank = CrankData(
                cumulativeRevolutions: try reader.read(UInt16.self, field: "cumulativeCrankRevolutions"),
                lastEventTime: try reader.read(UInt16.self, field: "lastCrankEventTime"))
        } else {
            crank = nil
        }
        reservedFlags = flags.rawValue & 0xFC
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xFC)
        if wheel != nil { flags.insert(.wheelRevolutionDataPresent) }
        if crank != nil { flags.insert(.crankRevolutionDataPresent) }
        writer.write(flags)
        if let wheel {
            writer.write(wheel.cumulativeRevolutions)
            writer.write(wheel.lastEventTime)
        }
        if let crank {
            writer.write(crank.cumulativeRevolutions)
            writer.write(crank.lastEventTime)
        }
    }

    /// `{cumulativeWheelRevolutions?, lastWheelEventTime? (1/1024 s), cumulativeCrankRevolutions?,
    /// lastCrankEventTime? (1/1024 s)}`.
    public var jsonValue: JSONValue {
        .fields([
            "cumulativeWheelRevolutions": wheel.map { .int($0.cumulativeRevolutions) },
            "lastWheelEventTime": wheel.map { .int($0.lastEventTime) },
            "cumulativeCrankRevolutions": crank.map { .int($0.cumulativeRevolutions) },
            "lastCrankEventTime": crank.map { .int($0.lastEventTime) },
        ])
    }
}
