import HaraldCodec

/// Appearance (0x2A01, GAP service; also advertising data type 0x19): what kind of device this
/// is, as a 10-bit category and a 6-bit subcategory in one u16.
///
/// Every value decodes; ``categoryName`` and ``subcategoryName`` name the common ones (nil for
/// values this table does not know).
public struct Appearance: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A01)
    public static let name = "Appearance"

    /// The whole 16-bit value.
    public var rawValue: UInt16

    /// An appearance from its 16-bit value: category in bits 6–15, subcategory in bits 0–5.
    @inlinable
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// An appearance from its parts; nil when the category exceeds 10 bits or the subcategory 6.
    public init?(category: UInt16, subcategory: UInt8) {
        guard category < 1 << 10, subcategory < 1 << 6 else { return nil }
        rawValue = category << 6 | UInt16(subcategory)
    }

    /// The category (bits 6…15).
    public var category: UInt16 { rawValue >> 6 }
    /// The subcategory (bits 0…5); 0 is the generic device of the category.
    public var subcategory: UInt8 { UInt8(rawValue & 0x3F) }

    /// Generic Heart Rate Sensor (0x0340).
    public static let heartRateSensor = Appearance(rawValue: 0x0340)
    /// Heart Rate Belt (0x0341).
    public static let heartRateBelt = Appearance(rawValue: 0x0341)

    private static let categoryNames: [UInt16: String] = [
        0: "unknown", 1: "phone", 2: "computer", 3: "watch", 4: "clock", 5: "display", 6: "remoteControl",
        7: "eyeGlasses", 8: "tag", 9: "keyring", 10: "mediaPlayer", 11: "barcodeScanner", 12: "thermometer",
        13: "heartRateSensor", 14: "bloodPressure", 15: "humanInterfaceDevice", 16: "glucoseMeter",
        17: "runningWalkingSensor", 18: "cycling", 49: "pulseOximeter", 50: "weightScale",
        51: "personalMobilityDevice", 52: "continuousGlucoseMonitor", 53: "insulinPump", 54: "medicationDelivery",
        81: "outdoorSportsActivity",
    ]

    private static let subcategoryNames: [UInt16: [UInt8: String]] = [
        3: [1: "sportsWatch", 2: "smartwatch"],
        12: [1: "earThermometer"],
        13: [1: "heartRateBelt"],
        14: [1: "armBloodPressure", 2: "wristBloodPressure"],
        15: [
            1: "keyboard", 2: "mouse", 3: "joystick", 4: "gamepad", 5: "digitizerTablet", 6: "cardReader",
            7: "digitalPen", 8: "barcodeScanner",
        ],
        17: [1: "inShoe", 2: "onShoe", 3: "onHip"],
        18: [1: "cyclingComputer", 2: "speedSensor", 3: "cadenceSensor", 4: "powerSensor", 5: "speedAndCadenceSensor"],
        49: [1: "fingertip", 2: "wristWorn"],
    ]

    /// The category's camelCase name for the common categories (`heartRateSensor`, …).
    public var categoryName: String? { Self.categoryNames[category] }

    /// The subcategory's name: `generic` for 0 in a named category, a specific name for the
    /// common ones, nil otherwise.
    public var subcategoryName: String? {
        if subcategory == 0 { return categoryName == nil ? nil : "generic" }
        return Self.subcategoryNames[category]?[subcategory]
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        rawValue = try reader.read(UInt16.self, field: "appearance")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(rawValue)
    }

    /// `{appearance (raw), category, subcategory, categoryName?, subcategoryName?}`.
    public var jsonValue: JSONValue {
        .fields([
            "appearance": .int(rawValue), "category": .int(category), "subcategory": .int(subcategory),
            "categoryName": categoryName.map(JSONValue.string), "subcategoryName": subcategoryName.map(JSONValue.string),
        ])
    }
}
