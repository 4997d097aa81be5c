import HaraldCodec

/// Weight Scale Feature (0x2A9E, read): what a scale supports and how finely it measures (u32).
///
/// Bits 0-2 are features, bits 3-6 the weight resolution, bits 7-9 the height resolution;
/// bits 10…31 are reserved and kept as received. Reserved resolution codes are kept as
/// `.reserved(code)`.
public struct WeightScaleFeature: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A9E)
    public static let name = "Weight Scale Feature"

    /// The single-bit features.
    public enum Feature: Int, FlagBit {
        /// Feature bits: 0 Time Stamp, 1 multiple users, 2 BMI supported.
        case timeStampSupported = 0, multipleUsersSupported = 1, bmiSupported = 2
    }

    /// The step of the weights the scale reports (bits 3-6).
    public enum WeightResolution: Hashable, Sendable {
        /// 0: the scale does not say.
        case notSpecified
        /// 0.5 kg or 1 lb.
        case halfKilogram
        /// 0.2 kg or 0.5 lb.
        case twoHundredGrams
        /// 0.1 kg or 0.2 lb.
        case hundredGrams
        /// 0.05 kg or 0.1 lb.
        case fiftyGrams
        /// 0.02 kg or 0.05 lb.
        case twentyGrams
        /// 0.01 kg or 0.02 lb.
        case tenGrams
        /// 0.005 kg or 0.01 lb (the finest the Weight field carries).
        case fiveGrams
        /// A reserved code (8…15), as received.
        case reserved(UInt8)

        static let steps: [(kilograms: Double, pounds: Double)] = [
            (0.005, 0.01), (0.5, 1), (0.2, 0.5), (0.1, 0.2), (0.05, 0.1), (0.02, 0.05), (0.01, 0.02), (0.005, 0.01),
        ]

        /// The resolution for a 4-bit code.
        public init(code: UInt8) {
            let named: [WeightResolution] = [
                .notSpecified, .halfKilogram, .twoHundredGrams, .hundredGrams, .fiftyGrams, .twentyGrams, .tenGrams, .fiveGrams,
            ]
            self = code < 8 ? named[Int(code)] : .reserved(code & 0x0F)
        }

        /// The 4-bit code.
        public var code: UInt8 {
            switch self {
            case .notSpecified: 0
            case .halfKilogram: 1
            case .twoHundredGrams: 2
            case .hundredGrams: 3
            case .fiftyGrams: 4
            case .twentyGrams: 5
            case .tenGrams: 6
            case .fiveGrams: 7
            case let .reserved(code): code
            }
        }

        /// The step in kilograms (SI scales); the finest step, 0.005 kg, when not specified or reserved.
        public var kilograms: Double { Self.steps[code < 8 ? Int(code) : 0].kilograms }
        /// The step in pounds (imperial scales); 0.01 lb when not specified or reserved.
        public var pounds: Double { Self.steps[code < 8 ? Int(code) : 0].pounds }
    }

    /// The step of the heights the scale reports (bits 7-9).
    public enum HeightResolution: Hashable, Sendable {
        /// 0: the scale does not say.
        case notSpecified
        /// 0.01 m or 1 in.
        case centimetre
        /// 0.005 m or 0.5 in.
        case halfCentimetre
        /// 0.001 m or 0.1 in (the finest the Height field carries).
        case millimetre
        /// A reserved code (4…7), as received.
        case reserved(UInt8)

        /// The resolution for a 3-bit code.
        public init(code: UInt8) {
            switch code {
            case 0: self = .notSpecified
            case 1: self = .centimetre
            case 2: self = .halfCentimetre
            case 3: self = .millimetre
            default: self = .reserved(code & 0x07)
            }
        }

        /// The 3-bit code.
        public var code: UInt8 {
            switch self {
            case .notSpecified: 0
            case .centimetre: 1
            case .halfCentimetre: 2
            case .millimetre: 3
            case let .reserved(code): code
            }
        }

        /// The step in metres; 0.001 m when not specified or reserved.
        public var metres: Double { [0.001, 0.01, 0.005, 0.001][code < 4 ? Int(code) : 0] }
        /// The step in inches; 0.1 in when not specified or reserved.
        public var inches: Double { [0.1, 1, 0.5, 0.1][code < 4 ? Int(code) : 0] }
    }

    /// Every bit of the field.
    public var rawValue: UInt32

    /// The features from the 32-bit field as sent.
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A feature set with the given features and resolutions.
    public init(
        features: Flags<Feature, UInt32> = [], weightResolution: WeightResolution = .notSpecified,
        heightResolution: HeightResolution = .notSpecified
    ) {
        rawValue = features.rawValue & 0x7 | UInt32(weightResolution.code & 0x0F) << 3 | UInt32(heightResolution.code & 0x07) << 7
    }

    /// The single-bit features.
    public var features: Flags<Feature, UInt32> { Flags(rawValue: rawValue & 0x7) }
    /// The weight resolution.
    public var weightResolution: WeightResolution { WeightResolution(code: UInt8((rawValue >> 3) & 0x0F)) }
    /// The height resolution.
    public var heightResolution: HeightResolution { HeightResolution(code: UInt8((rawValue >> 7) & 0x07)) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        rawValue = try reader.read(UInt32.self, field: "features")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(rawValue)
    }

    /// `{features (raw), timeStampSupported, multipleUsersSupported, bmiSupported,
    /// weightResolutionKilograms, weightResolutionPounds, heightResolutionMetres, heightResolutionInches}`.
    public var jsonValue: JSONValue {
        .object([
            "features": .int(rawValue),
            "timeStampSupported": .bool(features.contains(.timeStampSupported)),
            "multipleUsersSupported": .bool(features.contains(.multipleUsersSupported)),
            "bmiSupported": .bool(features.contains(.bmiSupported)),
            "weightResolutionCode": .int(weightResolution.code),
            "weightResolutionKilograms": .number(weightResolution.kilograms),
            "weightResolutionPounds": .number(weightResolution.pounds),
            "heightResolutionCode": .int(heightResolution.code),
            "heightResolutionMetres": .number(heightResolution.metres),
            "heightResolutionInches": .number(heightResolution.inches),
        ])
    }
}
