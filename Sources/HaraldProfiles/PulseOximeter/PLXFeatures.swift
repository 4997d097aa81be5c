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
        case measurementStatusSupported = 0
        case deviceAndSensorStatusSupported = 1
        case measurementStorageForSpotCheckSupported = 2
        case timestampForSpotCheckSupported = 3
        case spO2PRFastSupported = 4
        case spO2PRSlowSupported = 5
        case pulseAmplitudeIndexSupported = 6
        case multipleBondsSupported = 7
    }

    /// Supported features. Bits 0 and 1 always match the presence of the two support fields.
    public var supportedFeatures: Flags<Feature, UInt16>
    /// Which measurement-status bits the device can report.
    public var measurementStatusSupport: Flags<PLXMeasurementStatus, UInt16>?
    /// Which device-and-sensor-status bits the device can report (24 bits).
    public var deviceAndSensorStatusSupport: Flags<PLXDeviceAndSensorStatus, UInt32>?

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
        measurementStatusSupport = try supportedFeatures.contains(.measurementStatusSupported)
            ? reader.readFlags(PLXMeasurementStatus.self, as: UInt16.self, field: "measurementStatusSupport") : nil
        deviceAndSensorStatusSupport = try supportedFeatures.contains(.deviceAndSensorStatusSupported)
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
