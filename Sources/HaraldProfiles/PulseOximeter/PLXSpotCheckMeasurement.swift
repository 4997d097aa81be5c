import HaraldCodec

/// PLX Spot-check Measurement (0x2A5E, indicate): one SpO2 and pulse-rate reading.
///
/// Wire form: flags (u8), SpO2 (SFLOAT, %), pulse rate (SFLOAT, bpm), then in flag order Date
/// Time (bit 0), measurement status (u16, bit 1), device and sensor status (u24, bit 2), pulse
/// amplitude index (SFLOAT %, bit 3). Bit 4 says the device clock is not set. Flag bits 5…7 are
/// reserved and kept as received.
public struct PLXSpotCheckMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A5E)
    public static let name = "PLX Spot-Check Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 Timestamp, 1 Measurement Status, 2 Device and Sensor Status present.
        case timestampPresent = 0, measurementStatusPresent = 1, deviceAndSensorStatusPresent = 2
        /// Flags bits: 3 Pulse Amplitude Index present, 4 the device clock is not set.
        case pulseAmplitudeIndexPresent = 3, deviceClockNotSet = 4
    }

    /// Oxygen saturation, percent.
    public var spO2: MedicalFloat16
    /// Pulse rate, beats per minute.
    public var pulseRate: MedicalFloat16
    /// When the reading was taken.
    public var timestamp: DateTime?
    /// Measurement status.
    public var measurementStatus: Flags<PLXMeasurementStatus, UInt16>?
    /// Device and sensor status (24 bits).
    public var deviceAndSensorStatus: Flags<PLXDeviceAndSensorStatus, UInt32>?
    /// Pulse amplitude index, percent.
    public var pulseAmplitudeIndex: MedicalFloat16?
    /// The device's clock has not been set.
    public var deviceClockNotSet: Bool
    /// Flag bits 5…7 as received.
    public var reservedFlags: UInt8

    /// A measurement: SpO2 in percent, pulse rate in beats per minute.
    public init(
        spO2: MedicalFloat16, pulseRate: MedicalFloat16, timestamp: DateTime? = nil,
        measurementStatus: Flags<PLXMeasurementStatus, UInt16>? = nil,
        deviceAndSensorStatus: Flags<PLXDeviceAndSensorStatus, UInt32>? = nil,
        pulseAmplitudeIndex: MedicalFloat16? = nil, deviceClockNotSet: Bool = false
    ) {
        self.spO2 = spO2
        self.pulseRate = pulseRate
        self.timestamp = timestamp
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.deviceClockNotSet = deviceClockNotSet
        self.reservedFlags = 0
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        spO2 = try reader.decode(MedicalFloat16.self, field: "spO2")
        pulseRate = try reader.decode(MedicalFloat16.self, field: "pulseRate")
        timestamp = try flags.contains(.timestampPresent) ? reader.readDateTime(field: "timestamp") : nil
        measurementStatus =
            try flags.contains(.measurementStatusPresent)
            ? reader.readFlags(PLXMeasurementStatus.self, as: UInt16.self, field: "measurementStatus") : nil
        deviceAndSensorStatus =
            try flags.contains(.deviceAndSensorStatusPresent)
            ? reader.readFlags24(PLXDeviceAndSensorStatus.self, field: "deviceAndSensorStatus") : nil
        pulseAmplitudeIndex =
            try flags.contains(.pulseAmplitudeIndexPresent)
            ? reader.decode(MedicalFloat16.self, field: "pulseAmplitudeIndex") : nil
        deviceClockNotSet = flags.contains(.deviceClockNotSet)
        reservedFlags = flags.rawValue & 0xE0
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if let deviceAndSensorStatus {
            try requireEncodable(deviceAndSensorStatus.rawValue <= 0xFF_FFFF, field: "deviceAndSensorStatus", "does not fit 24 bits")
        }
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xE0)
        if timestamp != nil { flags.insert(.timestampPresent) }
        if measurementStatus != nil { flags.insert(.measurementStatusPresent) }
        if deviceAndSensorStatus != nil { flags.insert(.deviceAndSensorStatusPresent) }
        if pulseAmplitudeIndex != nil { flags.insert(.pulseAmplitudeIndexPresent) }
        if deviceClockNotSet { flags.insert(.deviceClockNotSet) }
        writer.write(flags)
        try writer.encode(spO2)
        try writer.encode(pulseRate)
        if let timestamp { try writer.encode(timestamp) }
        if let measurementStatus { writer.write(measurementStatus) }
        if let deviceAndSensorStatus { writer.write24(deviceAndSensorStatus) }
        if let pulseAmplitudeIndex { try writer.encode(pulseAmplitudeIndex) }
    }

    /// `{spO2, pulseRate, timestamp?, measurementStatus? (raw), deviceAndSensorStatus? (raw),
    /// pulseAmplitudeIndex?, deviceClockNotSet}`.
    public var jsonValue: JSONValue {
        .fields([
            "spO2": .medical(spO2),
            "pulseRate": .medical(pulseRate),
            "timestamp": timestamp?.jsonValue,
            "measurementStatus": measurementStatus.map { .int($0.rawValue) },
            "deviceAndSensorStatus": deviceAndSensorStatus.map { .int($0.rawValue) },
            "pulseAmplitudeIndex": pulseAmplitudeIndex.map { .medical($0) },
            "deviceClockNotSet": .bool(deviceClockNotSet),
        ])
    }
}
