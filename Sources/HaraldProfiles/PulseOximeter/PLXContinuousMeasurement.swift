import HaraldCodec

/// PLX Continuous Measurement (0x2A5F, notify): SpO2 and pulse rate, with optional fast and
/// slow averages, status and pulse amplitude index.
///
/// Wire form: flags (u8), SpO2 and PR (SFLOAT each), then in flag order SpO2PR-Fast (bit 0, two
/// SFLOATs), SpO2PR-Slow (bit 1, two SFLOATs), measurement status (u16, bit 2), device and
/// sensor status (u24, bit 3), pulse amplitude index (SFLOAT, bit 4). Flag bits 5…7 are
/// reserved and kept as received.
public struct PLXContinuousMeasurement: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A5F)
    public static let name = "PLX Continuous Measurement"

    /// The bits of the flags byte.
    public enum Flag: Int, FlagBit {
        /// Flags bits: 0 SpO2PR-Fast, 1 SpO2PR-Slow, 2 Measurement Status, 3 Device and Sensor Status present.
        case fastPresent = 0, slowPresent = 1, measurementStatusPresent = 2, deviceAndSensorStatusPresent = 3
        /// Flags bit 4: the Pulse Amplitude Index is present.
        case pulseAmplitudeIndexPresent = 4
    }

    /// An SpO2 (percent) and pulse rate (bpm) pair.
    public struct Reading: Hashable, Sendable {
        /// Oxygen saturation in percent.
        public var spO2: MedicalFloat16
        /// Pulse rate in beats per minute.
        public var pulseRate: MedicalFloat16

        /// A reading: SpO2 in percent, pulse rate in beats per minute.
        public init(spO2: MedicalFloat16, pulseRate: MedicalFloat16) {
            self.spO2 = spO2
            self.pulseRate = pulseRate
        }

        var jsonValue: JSONValue { .object(["spO2": .medical(spO2), "pulseRate": .medical(pulseRate)]) }
    }

    /// The normal reading.
    public var normal: Reading
    /// The fast-responding average.
    public var fast: Reading?
    /// The slow-responding average.
    public var slow: Reading?
    /// Measurement status.
    public var measurementStatus: Flags<PLXMeasurementStatus, UInt16>?
    /// Device and sensor status (24 bits).
    public var deviceAndSensorStatus: Flags<PLXDeviceAndSensorStatus, UInt32>?
    /// Pulse amplitude index, percent.
    public var pulseAmplitudeIndex: MedicalFloat16?
    /// Flag bits 5…7 as received.
    public var reservedFlags: UInt8

    /// A measurement from its fields; the pulse amplitude index in percent.
    public init(
        normal: Reading, fast: Reading? = nil, slow: Reading? = nil,
        measurementStatus: Flags<PLXMeasurementStatus, UInt16>? = nil,
        deviceAndSensorStatus: Flags<PLXDeviceAndSensorStatus, UInt32>? = nil, pulseAmplitudeIndex: MedicalFloat16? = nil
    ) {
        self.normal = normal
        self.fast = fast
        self.slow = slow
        self.measurementStatus = measurementStatus
        self.deviceAndSensorStatus = deviceAndSensorStatus
        self.pulseAmplitudeIndex = pulseAmplitudeIndex
        self.reservedFlags = 0
    }

    private static func readPair(_ reader: inout ByteReader, field: String) throws(ByteDecodingError) -> Reading {
        Reading(
            spO2: try reader.decode(MedicalFloat16.self, field: field + ".spO2"),
            pulseRate: try reader.decode(MedicalFloat16.self, field: field + ".pulseRate"))
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let flags = try reader.readFlags(Flag.self, as: UInt8.self)
        normal = Reading(
            spO2: try reader.decode(MedicalFloat16.self, field: "spO2"),
            pulseRate: try reader.decode(MedicalFloat16.self, field: "pulseRate"))
        fast = try flags.contains(.fastPresent) ? Self.readPair(&reader, field: "spO2PRFast") : nil
        slow = try flags.contains(.slowPresent) ? Self.readPair(&reader, field: "spO2PRSlow") : nil
        measurementStatus =
            try flags.contains(.measurementStatusPresent)
            ? reader.readFlags(PLXMeasurementStatus.self, as: UInt16.self, field: "measurementStatus") : nil
        deviceAndSensorStatus =
            try flags.contains(.deviceAndSensorStatusPresent)
            ? reader.readFlags24(PLXDeviceAndSensorStatus.self, field: "deviceAndSensorStatus") : nil
        pulseAmplitudeIndex =
            try flags.contains(.pulseAmplitudeIndexPresent)
            ? reader.decode(MedicalFloat16.self, field: "pulseAmplitudeIndex") : nil
        reservedFlags = flags.rawValue & 0xE0
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if let deviceAndSensorStatus {
            try requireEncodable(deviceAndSensorStatus.rawValue <= 0xFF_FFFF, field: "deviceAndSensorStatus", "does not fit 24 bits")
        }
        var flags = Flags<Flag, UInt8>(rawValue: reservedFlags & 0xE0)
        if fast != nil { flags.insert(.fastPresent) }
        if slow != nil { flags.insert(.slowPresent) }
        if measurementStatus != nil { flags.insert(.measurementStatusPresent) }
        if deviceAndSensorStatus != nil { flags.insert(.deviceAndSensorStatusPresent) }
        if pulseAmplitudeIndex != nil { flags.insert(.pulseAmplitudeIndexPresent) }
        writer.write(flags)
        for reading in [normal, fast, slow].compactMap({ $0 }) {
            writer.write(reading.spO2.bitPattern)
            writer.write(reading.pulseRate.bitPattern)
        }
        if let measurementStatus { writer.write(measurementStatus) }
        if let deviceAndSensorStatus { writer.write24(deviceAndSensorStatus) }
        if let pulseAmplitudeIndex { writer.write(pulseAmplitudeIndex.bitPattern) }
    }

    /// `{spO2, pulseRate, spO2PRFast? {spO2, pulseRate}, spO2PRSlow?, measurementStatus? (raw),
    /// deviceAndSensorStatus? (raw), pulseAmplitudeIndex?}`.
    public var jsonValue: JSONValue {
        .fields([
            "spO2": .medical(normal.spO2),
            "pulseRate": .medical(normal.pulseRate),
            "spO2PRFast": fast?.jsonValue,
            "spO2PRSlow": slow?.jsonValue,
            "measurementStatus": measurementStatus.map { .int($0.rawValue) },
            "deviceAndSensorStatus": deviceAndSensorStatus.map { .int($0.rawValue) },
            "pulseAmplitudeIndex": pulseAmplitudeIndex.map { .medical($0) },
        ])
    }
}
