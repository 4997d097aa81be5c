import HaraldCodec

/// Battery info (Huami characteristic 0x0006, read): 20 bytes.
///
/// | bytes | meaning |
/// |---|---|
/// | 0 | header (0x0F seen) |
/// | 1 | level, percent |
/// | 2 | 0 not charging, 1 charging |
/// | 3…9 | when the level was last taken off the charger (``MiBandDateTime``) |
/// | 10 | number of charges |
/// | 11…17 | end of the last charge (``MiBandDateTime``) |
/// | 18 | unknown (0x04 seen) |
/// | 19 | level at the end of the last charge, percent |
///
/// A band that never charged reports all-zero dates: those decode as nil.
public struct MiBandBatteryInfo: ByteCodable, Hashable, Sendable {
    /// Charging state (byte 2).
    public enum ChargingState: Hashable, Sendable {
        /// 0: on battery.
        case notCharging
        /// 1: on the charger.
        case charging
        /// Any other byte, as received.
        case other(UInt8)

        /// A state from its byte.
        public init(rawValue: UInt8) {
            switch rawValue {
            case 0: self = .notCharging
            case 1: self = .charging
            default: self = .other(rawValue)
            }
        }

        /// The byte sent on air.
        public var rawValue: UInt8 {
            switch self {
            case .notCharging: 0
            case .charging: 1
            case let .other(value): value
            }
        }
    }

    /// Byte 0, kept as received.
    public var header: UInt8
    /// Battery level, percent (0…100).
    public var level: UInt8
    /// Whether the band is charging.
    public var chargingState: ChargingState
    /// When the band last came off the charger (nil when never).
    public var lastOff: MiBandDateTime?
    /// How many times the band was charged.
    public var chargeCount: UInt8
    /// When the last charge ended (nil when never).
    public var lastCharge: MiBandDateTime?
    /// Byte 18, kept as received.
    public var reserved: UInt8
    /// Level at the end of the last charge, percent.
    public var lastChargeLevel: UInt8

    /// Battery info from its fields; levels in percent.
    public init(
        header: UInt8 = 0x0F, level: UInt8, chargingState: ChargingState = .notCharging, lastOff: MiBandDateTime? = nil,
        chargeCount: UInt8 = 0, lastCharge: MiBandDateTime? = nil, reserved: UInt8 = 0x04, lastChargeLevel: UInt8 = 100
    ) {
        self.header = header
        self.level = level
        self.chargingState = chargingState
        self.lastOff = lastOff
        self.chargeCount = chargeCount
        self.lastCharge = lastCharge
        self.reserved = reserved
        self.lastChargeLevel = lastChargeLevel
    }

    /// True while the band sits on its charger.
    public var isCharging: Bool { chargingState == .charging }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        header = try reader.read(UInt8.self, field: "header")
        let levelOffset = reader.offset
        level = try reader.read(UInt8.self, field: "level")
        guard level <= 100 else { throw reader.invalidValue("\(level) % is above 100", field: "level", at: levelOffset) }
        chargingState = ChargingState(rawValue: try reader.read(UInt8.self, field: "charging"))
        lastOff = try Self.optionalDate(&reader, field: "lastOff")
        chargeCount = try reader.read(UInt8.self, field: "chargeCount")
        lastCharge = try Self.optionalDate(&reader, field: "lastCharge")
        reserved = try reader.read(UInt8.self, field: "reserved")
        lastChargeLevel = try reader.read(UInt8.self, field: "lastChargeLevel")
    }

    private static func optionalDate(_ reader: inout ByteReader, field: String) throws(ByteDecodingError) -> MiBandDateTime? {
        var fields = try reader.subReader(count: 7, field: field)
        var probe = fields
        if probe.readRemainingBytes().allSatisfy({ $0 == 0 }) { return nil }
        do { return try MiBandDateTime(from: &fields) } catch { throw error.nested(in: field) }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(header)
        writer.write(level)
        writer.write(chargingState.rawValue)
        if let lastOff { try writer.encode(lastOff) } else { writer.write(bytes: [UInt8](repeating: 0, count: 7)) }
        writer.write(chargeCount)
        if let lastCharge { try writer.encode(lastCharge) } else { writer.write(bytes: [UInt8](repeating: 0, count: 7)) }
        writer.write(reserved)
        writer.write(lastChargeLevel)
    }
}
