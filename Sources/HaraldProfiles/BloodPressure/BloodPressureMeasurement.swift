import HaraldCodec

/// Blood Pressure Measurement (0x2A35, indicate): systolic, diastolic and mean arterial pressure
/// as IEEE-11073 SFLOATs, with optional time stamp, pulse rate, user and status.
///
/// Wire form: flags (u8), systolic, diastolic, MAP (3 × SFLOAT), then in flag order Date Time
/// (bit 1), pulse rate SFLOAT (bit 2), user ID u8 (bit 3), measurement status u16 (bit 4).
/// Flag bits 5…7 are reserved and kept as received.
public struct BloodPressureMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A35)
    public static let name = "Blood Pressure Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 pressure in kPa (else mmHg), 1 Time Stamp, 2 Pulse Rate, 3 User ID, 4 Measurement Status present.
        case unitIsKilopascal = 0, timestampPresent = 1, pulseRatePresent = 2, userIDPresent = 3, measurementStatusPresent = 4
    }

    /// Systolic pressure, in ``unit``.
    public var systolic: MedicalFloat16
    /// Diastolic pressure, in ``unit``.
    public var diastolic: MedicalFloat16
    /// Mean arterial pressure, in ``unit``.
    public var meanArterialPressure: MedicalFloat16
    /// mmHg or kPa.
    public var unit: BloodPressureUnit
    /// When the measurement was taken.
    public var timestamp: DateTime?
    /// Pulse rate in beats per minute.
    public var pulseRate: MedicalFloat16?
    /// The user the measurement belongs to; 255 means unknown user.
    public var userID: UInt8?
    /// Problems detected while measuring.
    public var measurementStatus: BloodPressureMeasurementStatus?
    /// Flag bits 5…7 as received.
    public var reservedFlags: UInt8

    /// A measurement from its fields; pressures in `unit` (mmHg or kPa), pulse rate in beats per minute.
    public init(
        systolic: MedicalFloat16, diastolic: MedicalFloat16, meanArterialPressure: MedicalFloat16,
        unit: BloodPressureUnit = .mmHg, timestamp: DateTime? = nil, pulseRate: MedicalFloat16? = nil,
        userID: UInt8? = nil, measurementStatus: BloodPressureMeasurementStatus? = nil
    ) {
        self.systolic = systolic
        self.diastolic = diastolic
        self.meanArterialPressure = meanArterialPressure
        self.unit = unit
        self.timestamp = timestamp
        self.pulseRate = pulseRate
        self.userID = userID
        self.measurementStatus = measurementStatus
        self.reservedFlags = 0
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        systolic = MedicalFloat16(bitPattern: try reader.read(UInt16.self, field: "systolic"))
        diastolic = MedicalFloat16(bitPattern: try reader.read(UInt16.self, field: "diastolic"))
        meanArterialPressure = MedicalFloat16(bitPattern: try reader.read(UInt16.self, field: "meanArterialPressure"))
        unit = flags.contains(.unitIsKilopascal) ? .kPa : .mmHg
        timestamp = try flags.contains(.timestampPresent) ? reader.readDateTime(field: "timestamp") : nil
        pulseRate =
            try flags.contains(.pulseRatePresent)
            ? MedicalFloat16(bitPattern: reader.read(UInt16.self, field: "pulseRate")) : nil
        userID = try flags.contains(.userIDPresent) ? reader.read(UInt8.self, field: "userID") : nil
        measurementStatus =
            try flags.contains(.measurementStatusPresent)
            ? BloodPressureMeasurementStatus(rawValue: reader.read(UInt16.self, field: "measurementStatus")) : nil
        reservedFlags = flags.rawValue & 0xE0
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xE0)
        if unit == .kPa { flags.insert(.unitIsKilopascal) }
        if timestamp != nil { flags.insert(.timestampPresent) }
        if pulseRate != nil { flags.insert(.pulseRatePresent) }
        if userID != nil { flags.insert(.userIDPresent) }
        if measurementStatus != nil { flags.insert(.measurementStatusPresent) }
        writer.write(flags)
        writer.write(systolic.bitPattern)
        writer.write(diastolic.bitPattern)
        writer.write(meanArterialPressure.bitPattern)
        if let timestamp { try writer.encode(timestamp) }
        if let pulseRate { writer.write(pulseRate.bitPattern) }
        if let userID { writer.write(userID) }
        if let measurementStatus { writer.write(measurementStatus.rawValue) }
    }

    /// `{unit: "mmHg"|"kPa", systolic, diastolic, meanArterialPressure, timestamp?, pulseRate?,
    /// userID?, measurementStatus? (raw u16)}`.
    public var jsonValue: JSONValue {
        .fields([
            "unit": .string("\(unit)"),
            "systolic": .medical(systolic),
            "diastolic": .medical(diastolic),
            "meanArterialPressure": .medical(meanArterialPressure),
            "timestamp": timestamp?.jsonValue,
            "pulseRate": pulseRate.map { .medical($0) },
            "userID": userID.map { .int($0) },
            "measurementStatus": measurementStatus.map { .int($0.rawValue) },
        ])
    }
}
