import HaraldCodec

/// Temperature Measurement (0x2A1C, indicate): a body temperature as an IEEE-11073 FLOAT, in °C
/// or °F, with an optional time stamp and type. Intermediate Temperature (0x2A1E) has the same
/// form; see ``IntermediateTemperature``.
///
/// Wire form: flags (u8: bit 0 Fahrenheit, bit 1 time stamp, bit 2 temperature type), FLOAT
/// temperature, Date Time (7 bytes, if bit 1), type (u8, if bit 2). Flag bits 3…7 are reserved
/// and kept as received.
public struct TemperatureMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A1C)
    public static let name = "Temperature Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 in °F (else °C), 1 Time Stamp present, 2 Temperature Type present.
        case unitIsFahrenheit = 0, timestampPresent = 1, temperatureTypePresent = 2
    }

    /// The unit of ``temperature``.
    public enum Unit: Hashable, Sendable {
        /// Degrees Celsius or degrees Fahrenheit (Flags bit 0).
        case celsius, fahrenheit
    }

    /// The temperature, in ``unit``; may be one of the IEEE-11073 special values.
    public var temperature: MedicalFloat32
    /// Degrees Celsius or Fahrenheit.
    public var unit: Unit
    /// When the temperature was taken.
    public var timestamp: DateTime?
    /// Where it was taken.
    public var temperatureType: TemperatureType?
    /// Flag bits 3…7 as received.
    public var reservedFlags: UInt8

    /// A measurement in `unit`, optionally with when and where it was taken.
    public init(temperature: MedicalFloat32, unit: Unit = .celsius, timestamp: DateTime? = nil, temperatureType: TemperatureType? = nil) {
        self.temperature = temperature
        self.unit = unit
        self.timestamp = timestamp
        self.temperatureType = temperatureType
        self.reservedFlags = 0
    }

    /// The temperature in degrees Celsius (NaN for special values other than the infinities).
    public var celsius: Double {
        unit == .celsius ? temperature.doubleValue : (temperature.doubleValue - 32) * 5 / 9
    }

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        temperature = try reader.decode(MedicalFloat32.self, field: "temperature")
        unit = flags.contains(.unitIsFahrenheit) ? .fahrenheit : .celsius
        timestamp = try flags.contains(.timestampPresent) ? reader.readDateTime(field: "timestamp") : nil
        temperatureType = try flags.contains(.temperatureTypePresent) ? reader.decode(TemperatureType.self, field: "") : nil
        reservedFlags = flags.rawValue & 0xF8
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xF8)
        if unit == .fahrenheit { flags.insert(.unitIsFahrenheit) }
        if timestamp != nil { flags.insert(.timestampPresent) }
        if temperatureType != nil { flags.insert(.temperatureTypePresent) }
        writer.write(flags)
        try writer.encode(temperature)
        if let timestamp { try writer.encode(timestamp) }
        if let temperatureType { try writer.encode(temperatureType) }
    }

    /// `{temperature, unit: "celsius"|"fahrenheit", timestamp?, temperatureType?}`.
    public var jsonValue: JSONValue {
        .fields([
            "temperature": .medical(temperature),
            "unit": .string("\(unit)"),
            "timestamp": timestamp?.jsonValue,
            "temperatureType": temperatureType.map { .string($0.caseName) },
            // The raw code too, so a reserved type (printed as "reserved") keeps its number.
            "temperatureTypeCode": temperatureType.map { .int($0.code) },
        ])
    }
}
