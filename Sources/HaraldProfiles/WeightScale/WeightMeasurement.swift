import HaraldCodec

/// Weight Measurement (0x2A9D, indicate): a body weight, with optional time stamp, user, BMI and
/// height.
///
/// Wire form: flags (u8: bit 0 imperial units, bit 1 time stamp, bit 2 user ID, bit 3 BMI and
/// height), weight (u16), Date Time (bit 1), user ID (u8, bit 2), BMI (u16, 0.1 kg/m²) and height
/// (u16) (bit 3). Units: weight 0.005 kg or 0.01 lb; height 0.001 m or 0.1 in. A weight of 0xFFFF
/// means the measurement was unsuccessful. Flag bits 4…7 are reserved and kept as received.
///
/// The raw fields are kept; ``weight`` and ``height`` apply the specification's fixed
/// resolutions. Some scales instead count in the steps their Weight Scale Feature announces;
/// ``weight(countingIn:)`` reads the value that way.
public struct WeightMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A9D)
    public static let name = "Weight Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 imperial units (lb, in), 1 Time Stamp, 2 User ID, 3 BMI and Height present.
        case imperialUnits = 0, timestampPresent = 1, userIDPresent = 2, bmiAndHeightPresent = 3
    }

    /// SI (kg, m) or imperial (lb, in).
    public enum UnitSystem: Hashable, Sendable {
        /// SI (kg, m) or imperial (lb, in) units (Flags bit 0).
        case si, imperial
    }

    /// Raw weight: 0.005 kg or 0.01 lb per step; 0xFFFF = measurement unsuccessful.
    public var rawWeight: UInt16
    /// SI or imperial.
    public var units: UnitSystem
    /// When the weight was taken.
    public var timestamp: DateTime?
    /// The user; 255 means unknown user.
    public var userID: UInt8?
    /// Body-mass index in 0.1 kg/m² (present together with ``rawHeight``).
    public var rawBMI: UInt16?
    /// Raw height: 0.001 m or 0.1 in per step (present together with ``rawBMI``).
    public var rawHeight: UInt16?
    /// Flag bits 4…7 as received.
    public var reservedFlags: UInt8

    /// A measurement: weight in 0.005 kg or 0.01 lb steps, BMI in 0.1 kg/m², height in 0.001 m or 0.1 in.
    public init(
        rawWeight: UInt16, units: UnitSystem = .si, timestamp: DateTime? = nil, userID: UInt8? = nil,
        rawBMI: UInt16? = nil, rawHeight: UInt16? = nil
    ) {
        self.rawWeight = rawWeight
        self.units = units
        self.timestamp = timestamp
        self.userID = userID
        self.rawBMI = rawBMI
        self.rawHeight = rawHeight
        self.reservedFlags = 0
    }

    /// True when the scale reported an unsuccessful measurement (weight 0xFFFF).
    public var isUnsuccessful: Bool { rawWeight == 0xFFFF }

    /// The weight in kilograms (SI) or pounds (imperial); nil when unsuccessful.
    public var weight: Double? {
        isUnsuccessful ? nil : Double(rawWeight) * (units == .si ? 0.005 : 0.01)
    }

    /// The weight reading the raw value as a count of the scale's announced resolution steps
    /// (as some scales do); the fixed 0.005 kg / 0.01 lb step when the resolution is not specified.
    public func weight(countingIn resolution: WeightScaleFeature.WeightResolution) -> Double? {
        isUnsuccessful ? nil : Double(rawWeight) * (units == .si ? resolution.kilograms : resolution.pounds)
    }

    /// Height in metres (SI) or inches (imperial).
    public var height: Double? { rawHeight.map { Double($0) * (units == .si ? 0.001 : 0.1) } }
    /// Body-mass index in kg/m².
    public var bmi: Double? { rawBMI.map { Double($0) / 10 } }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        units = flags.contains(.imperialUnits) ? .imperial : .si
        rawWeight = try reader.read(UInt16.self, field: "weight")
        timestamp = try flags.contains(.timestampPresent) ? reader.readDateTime(field: "timestamp") : nil
        userID = try flags.contains(.userIDPresent) ? reader.read(UInt8.self, field: "userID") : nil
        if flags.contains(.bmiAndHeightPresent) {
            rawBMI = try reader.read(UInt16.self, field: "bmi")
            rawHeight = try reader.read(UInt16.self, field: "height")
        } else {
            rawBMI = nil
            rawHeight = nil
        }
        reservedFlags = flags.rawValue & 0xF0
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable((rawBMI == nil) == (rawHeight == nil), field: "bmi", "BMI and height go together")
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xF0)
        if units == .imperial { flags.insert(.imperialUnits) }
        if timestamp != nil { flags.insert(.timestampPresent) }
        if userID != nil { flags.insert(.userIDPresent) }
        if rawBMI != nil { flags.insert(.bmiAndHeightPresent) }
        writer.write(flags)
        writer.write(rawWeight)
        if let timestamp { try writer.encode(timestamp) }
        if let userID { writer.write(userID) }
        if let rawBMI, let rawHeight {
            writer.write(rawBMI)
            writer.write(rawHeight)
        }
    }

    /// `{weight, unit: "kg"|"lb", measurementUnsuccessful?, timestamp?, userID?, bmi?, height?,
    /// heightUnit?: "m"|"in"}`.
    public var jsonValue: JSONValue {
        .fields([
            "weight": weight.map { .number($0) },
            "unit": .string(units == .si ? "kg" : "lb"),
            "measurementUnsuccessful": isUnsuccessful ? .bool(true) : nil,
            "timestamp": timestamp?.jsonValue,
            "userID": userID.map { .int($0) },
            "bmi": bmi.map { .number($0) },
            "height": height.map { .number($0) },
            "heightUnit": height == nil ? nil : .string(units == .si ? "m" : "in"),
        ])
    }
}
