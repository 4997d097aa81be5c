import Foundation
import HaraldCodec

/// Glucose Measurement (0x2A18, notify): one stored glucose record.
///
/// Wire form: flags (u8), sequence number (u16), base time (Date Time, 7 bytes), then in flag
/// order: time offset (s16 minutes, bit 0); concentration (SFLOAT) with type and sample location
/// (u8: low nibble type, high nibble location) (bit 1); sensor status annunciation (u16, bit 3).
/// Bit 2 gives the concentration unit (0 kg/L, 1 mol/L); bit 4 says a Glucose Measurement
/// Context follows in a separate notification. Flag bits 5…7 are reserved and kept as received.
/// Reserved type and location codes are kept (see ``GlucoseSampleType``).
public struct GlucoseMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A18)
    public static let name = "Glucose Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 Time Offset present, 1 concentration, type and location present, 2 concentration in mol/L (else kg/L).
        case timeOffsetPresent = 0, concentrationPresent = 1, unitIsMolPerLitre = 2
        /// Flags bits: 3 Sensor Status Annunciation present, 4 a Glucose Measurement Context follows.
        case sensorStatusPresent = 3, contextInformationFollows = 4
    }

    /// The unit of ``concentration``.
    public enum Unit: Hashable, Sendable {
        /// Kilograms per litre (real meters send mg/dL scaled: exponent −5).
        case kilogramsPerLitre
        /// Moles per litre.
        case molesPerLitre

        /// `kg/L` or `mol/L`.
        public var symbol: String { self == .kilogramsPerLitre ? "kg/L" : "mol/L" }
    }

    /// The concentration with its sample type and location (present together on the wire).
    public struct Concentration: Hashable, Sendable {
        /// The glucose concentration, in ``unit``.
        public var value: MedicalFloat16
        /// kg/L or mol/L.
        public var unit: Unit
        /// The fluid sampled.
        public var type: GlucoseSampleType
        /// Where it was sampled.
        public var sampleLocation: GlucoseSampleLocation

        /// A concentration in `unit` (kg/L or mol/L) with the sample's type and location.
        @inlinable
        public init(value: MedicalFloat16, unit: Unit, type: GlucoseSampleType, sampleLocation: GlucoseSampleLocation) {
            self.value = value
            self.unit = unit
            self.type = type
            self.sampleLocation = sampleLocation
        }

        /// The concentration in mg/dL (kg/L × 100 000), nil when the unit is mol/L.
        public var milligramsPerDecilitre: Double? { unit == .kilogramsPerLitre ? value.doubleValue * 100_000 : nil }
        /// The concentration in mmol/L (mol/L × 1000), nil when the unit is kg/L.
        public var millimolesPerLitre: Double? { unit == .molesPerLitre ? value.doubleValue * 1000 : nil }
    }

    /// Sequence number of the record, counting up from 0.
    public var sequenceNumber: UInt16
    /// The base time of the record.
    public var baseTime: DateTime
    /// Minutes to add to the base time to get the time of the measurement.
    public var timeOffset: Int16?
    /// The measured concentration.
    public var concentration: Concentration?
    /// Conditions the meter flagged.
    public var sensorStatus: Flags<GlucoseSensorStatus, UInt16>?
    /// A Glucose Measurement Context with the same sequence number follows.
    public var contextInformationFollows: Bool
    /// Flag bits 5…7 as received.
    public var reservedFlags: UInt8
    /// Flag bit 2 (unit) as received when no concentration is present (it means nothing then).
    public var unitFlagWithoutConcentration: Bool

    /// A measurement from its fields; `timeOffset` in minutes from `baseTime`.
    public init(
        sequenceNumber: UInt16, baseTime: DateTime, timeOffset: Int16? = nil, concentration: Concentration? = nil,
        sensorStatus: Flags<GlucoseSensorStatus, UInt16>? = nil, contextInformationFollows: Bool = false
    ) {
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.sensorStatus = sensorStatus
        self.contextInformationFollows = contextInformationFollows
        self.reservedFlags = 0
        self.unitFlagWithoutConcentration = false
    }

    /// When the sample was measured: the base time plus the time offset, read as wall-clock time
    /// in `timeZone`; nil when the base date is not known.
    public func measurementDate(in timeZone: TimeZone = .current) -> Date? {
        guard let base = baseTime.date(in: timeZone) else { return nil }
        return base.addingTimeInterval(Double(timeOffset ?? 0) * 60)
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        sequenceNumber = try reader.read(UInt16.self, field: "sequenceNumber")
        baseTime = try reader.readDateTime(field: "baseTime")
        timeOffset = try flags.contains(.timeOffsetPresent) ? reader.read(Int16.self, field: "timeOffset") : nil
        let unitFlag = flags.contains(.unitIsMolPerLitre)
        if flags.contains(.concentrationPresent) {
            let value = MedicalFloat16(bitPattern: try reader.read(UInt16.self, field: "concentration"))
            let typeAndLocation = try reader.read(UInt8.self, field: "typeAndSampleLocation")
            concentration = Concentration(
                value: value, unit: unitFlag ? .molesPerLitre : .kilogramsPerLitre,
                type: GlucoseSampleType(code: typeAndLocation & 0x0F),
                sampleLocation: GlucoseSampleLocation(code: typeAndLocation >> 4))
            unitFlagWithoutConcentration = false
        } else {
            concentration = nil
            unitFlagWithoutConcentration = unitFlag
        }
        sensorStatus =
            try flags.contains(.sensorStatusPresent)
            ? Flags(rawValue: reader.read(UInt16.self, field: "sensorStatus")) : nil
        contextInformationFollows = flags.contains(.contextInformationFollows)
        reservedFlags = flags.rawValue & 0xE0
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xE0)
        if timeOffset != nil { flags.insert(.timeOffsetPresent) }
        if let concentration {
            flags.insert(.concentrationPresent)
            if concentration.unit == .molesPerLitre { flags.insert(.unitIsMolPerLitre) }
            try requireEncodable(concentration.type.code <= 0x0F, field: "type", "code does not fit 4 bits")
            try requireEncodable(concentration.sampleLocation.code <= 0x0F, field: "sampleLocation", "code does not fit 4 bits")
        } else if unitFlagWithoutConcentration {
            flags.insert(.unitIsMolPerLitre)
        }
        if sensorStatus != nil { flags.insert(.sensorStatusPresent) }
        if contextInformationFollows { flags.insert(.contextInformationFollows) }
        writer.write(flags)
        writer.write(sequenceNumber)
        try writer.encode(baseTime)
        if let timeOffset { writer.write(timeOffset) }
        if let concentration {
            writer.write(concentration.value.bitPattern)
            writer.write(concentration.sampleLocation.code << 4 | concentration.type.code)
        }
        if let sensorStatus { writer.write(sensorStatus) }
    }

    /// `{sequenceNumber, baseTime, timeOffset? (minutes), concentration?, unit? ("kg/L"|"mol/L"),
    /// type? (code), typeName?, sampleLocation? (code), sampleLocationName?, sensorStatus? (raw),
    /// contextInformationFollows}`.
    public var jsonValue: JSONValue {
        .fields([
            "sequenceNumber": .int(sequenceNumber),
            "baseTime": baseTime.jsonValue,
            "timeOffset": timeOffset.map { .int($0) },
            "concentration": concentration.map { .medical($0.value) },
            "unit": concentration.map { .string($0.unit.symbol) },
            "type": concentration.map { .int($0.type.code) },
            "typeName": concentration.map { .string($0.type.caseName) },
            "sampleLocation": concentration.map { .int($0.sampleLocation.code) },
            "sampleLocationName": concentration.map { .string($0.sampleLocation.caseName) },
            "sensorStatus": sensorStatus.map { .int($0.rawValue) },
            "contextInformationFollows": .bool(contextInformationFollows),
        ])
    }
}
