import HaraldCodec

/// PLX Features (0x2A60, read): what a pulse oximeter supports.
///
/// Wire form: supported features (u16), then measurement-status support (u16) if feature bit 0
/// is set, then device-and-sensor-status support (u24) if bit 1 is set.
public struct PLXFeatures: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A60)
    public static let name = "PLX Features"

    /// The bits of the Supported Features field (bits 8…15 reserved, kept as received).
    public enum Feature: Int, FlagBit {
        /// Bit 0: measurements can carry a Measurement Status.
        case measurementStatusSupported = 0
        /// Bit 1: measurements can carry a Device and Sensor Status.
        case deviceAndSensorStatusSupported = 1
        /// Bit 2: spot-check measurements are stored for later transfer.
        case measurementStorageForSpotCheckSupported = 2
        /// Bit 3: spot-check measurements carry a timestamp.
        case timestampForSpotCheckSupported = 3
        /// Bit 4: the fast-averaged SpO2 and pulse rate are reported.
        case spO2PRFastSupported = 4
        /// Bit 5: the slow-averaged SpO2 and pulse rate are reported.
        case spO2PRSlowSupported = 5
        /// Bit 6: the Pulse Amplitude Index is reported.
        case pulseAmplitudeIndexSupported = 6
        /// Bit 7: the sensor keeps bonds with more than one collector.
        case multipleBondsSupported = 7
    }

    /// Supported features. Bits 0 and 1 always match the presence of the two support fields.
    public var supportedFeatures: Flags<Feature, UInt16>
    /// Which measurement-status bits the device can report.
    public var measurementStatusSupport: Flags<PLXMeasurementStatus, UInt16>?
    /// Which device-and-sensor-status bits the device can report (24 bits).
    public var deviceAndSensorStatusSupport: Flags<PLXDeviceAndSensorStatus, UInt32>?

    /// Features from their fields; the two supports are present when their feature bits are set.
    public init(
        supportedFeatures: Flags<Feature, UInt16>, measurementStatusSupport: Flags<PLXMeasurementStatus, UInt16>? = nil,
        deviceAndSensorStatusSupport: Flags<PLXDeviceAndSensorStatus, UInt32>? = nil
    ) {
        var features = supportedFeatures
        features[.measurementStatusSupported] = measurementStatusSupport != nil
        features[.deviceAndSensorStatusSupported] = deviceAndSensorStatusSupport != nil
        self.supportedFeatures = features
        self.measurementStatusSupport = measurementStatusSupport
        self.deviceAndSensorStatusSupport = deviceAndSensorStatusSupport
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        supportedFeatures = try reader.readFlags(Feature.self, as: UInt16.self, field: "supportedFeatures")
        measurementStatusSupport =
            try supportedFeatures.contains(.measurementStatusSupported)
            ? reader.readFlags(PLXMeasurementStatus.self, as: UInt16.self, field: "measurementStatusSupport") : nil
        deviceAndSensorStatusSupport =
            try supportedFeatures.contains(.deviceAndSensorStatusSupported)
            ? reader.readFlags24(PLXDeviceAndSensorStatus.self, field: "deviceAndSensorStatusSupport") : nil
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if let deviceAndSensorStatusSupport {
            try requireEncodable(deviceAndSensorStatusSupport.rawValue <= 0xFF_FFFF, field: "deviceAndSensorStatusSupport", "does not fit 24 bits")
        }
        var features = supportedFeatures
        features[.measurementStatusSupported] = measurementStatusSupport != nil
        features[.deviceAndSensorStatusSupported] = deviceAndSensorStatusSupport != nil
        writer.write(features)
        if let measurementStatusSupport { writer.write(measurementStatusSupport) }
        if let deviceAndSensorStatusSupport { writer.write24(deviceAndSensorStatusSupport) }
    }

    /// `{supportedFeatures (raw), measurementStatusSupport? (raw), deviceAndSensorStatusSupport? (raw)}`.
    public var jsonValue: JSONValue {
        .fields([
            "supportedFeatures": .int(supportedFeatures.rawValue),
            "measurementStatusSupport": measurementStatusSupport.map { .int($0.rawValue) },
            "deviceAndSensorStatusSupport": deviceAndSensorStatusSupport.map { .int($0.rawValue) },
        ])
    }
}
