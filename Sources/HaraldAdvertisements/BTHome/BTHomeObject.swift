/// What one BTHome object id carries: its name, how its bytes are laid out, its factor and
/// unit (the table of the BTHome v2 format, bthome.io/format).
///
/// Every multi-octet value is little-endian. A numeric value is its integer times ``factor``.
/// Units are spelled as Home Assistant spells them (`°C`, `lx`, `µg/m³`), so a reading can go
/// into an MQTT discovery config unchanged.
public struct BTHomeObject: Hashable, Sendable {
    /// How the octets after the object id are read.
    public enum Layout: Hashable, Sendable {
        /// An integer of `size` octets, signed or not, times the factor.
        case number(size: Int, signed: Bool)
        /// One octet: 0 is false, 1 is true (anything else is rejected).
        case binary
        /// A length octet, then that many octets of UTF-8 text.
        case text
        /// A length octet, then that many octets, reported as hex.
        case raw
        /// A button event: one octet naming the press.
        case buttonEvent
        /// A dimmer event: one octet naming the direction, one the number of steps.
        case dimmerEvent
        /// A firmware version in `size` octets (3 or 4), least significant part first.
        case firmwareVersion(size: Int)
        /// Seconds since 1970-01-01 UTC, 4 octets unsigned.
        case timestamp
    }

    /// The object id (the octet before the value).
    public let id: UInt8
    /// The key of its readings, such as `temperature` or `door`; unique per kind of value
    /// (so the binary `battery_low` differs from the `battery` percentage).
    public let key: String
    /// How the value is laid out.
    public let layout: Layout
    /// The factor a numeric value is multiplied by (1 for the others).
    public let factor: Double
    /// The unit of the value, when it has one.
    public let unit: String?
    /// Home Assistant's device class for the value (sensor or binary sensor), when one fits.
    public let deviceClass: String?

    init(_ id: UInt8, _ key: String, _ layout: Layout, factor: Double = 1, unit: String? = nil, deviceClass: String? = nil) {
        self.id = id
        self.key = key
        self.layout = layout
        self.factor = factor
        self.unit = unit
        self.deviceClass = deviceClass
    }

    /// The object for `id`, or nil for an id this decoder does not know.
    public static func object(for id: UInt8) -> BTHomeObject? { table[Int(id)] }

    /// Every known object, by id.
    public static let all: [BTHomeObject] = sensors + binarySensors + events + deviceInformation

    /// The packet id (0x00): one octet, changed by the device whenever its data changes.
    public static let packetIDObject: UInt8 = 0x00

    private static let table: [BTHomeObject?] = {
        var table = [BTHomeObject?](repeating: nil, count: 256)
        for object in all { table[Int(object.id)] = object }
        return table
    }()

    private static func u(_ size: Int) -> Layout { .number(size: size, signed: false) }
    private static func s(_ size: Int) -> Layout { .number(size: size, signed: true) }

    /// The numeric sensor objects.
    static let sensors: [BTHomeObject] = [
        BTHomeObject(0x00, "packet_id", u(1)),
        BTHomeObject(0x01, "battery", u(1), unit: "%", deviceClass: "battery"),
        BTHomeObject(0x02, "temperature", s(2), factor: 0.01, unit: "°C", deviceClass: "temperature"),
        BTHomeObject(0x03, "humidity", u(2), factor: 0.01, unit: "%", deviceClass: "humidity"),
        BTHomeObject(0x04, "pressure", u(3), factor: 0.01, unit: "hPa", deviceClass: "pressure"),
        BTHomeObject(0x05, "illuminance", u(3), factor: 0.01, unit: "lx", deviceClass: "illuminance"),
        BTHomeObject(0x06, "mass_kg", u(2), factor: 0.01, unit: "kg", deviceClass: "weight"),
        BTHomeObject(0x07, "mass_lb", u(2), factor: 0.01, unit: "lb", deviceClass: "weight"),
        BTHomeObject(0x08, "dew_point", s(2), factor: 0.01, unit: "°C", deviceClass: "temperature"),
        BTHomeObject(0x09, "count", u(1)),
        BTHomeObject(0x0A, "energy", u(3), factor: 0.001, unit: "kWh", deviceClass: "energy"),
        BTHomeObject(0x0B, "power", u(3), factor: 0.01, unit: "W", deviceClass: "power"),
        BTHomeObject(0x0C, "voltage", u(2), factor: 0.001, unit: "V", deviceClass: "voltage"),
        BTHomeObject(0x0D, "pm25", u(2), unit: "µg/m³", deviceClass: "pm25"),
        BTHomeObject(0x0E, "pm10", u(2), unit: "µg/m³", deviceClass: "pm10"),
        BTHomeObject(0x12, "co2", u(2), unit: "ppm", deviceClass: "carbon_dioxide"),
        BTHomeObject(0x13, "tvoc", u(2), unit: "µg/m³", deviceClass: "volatile_organic_compounds"),
        BTHomeObject(0x14, "moisture", u(2), factor: 0.01, unit: "%", deviceClass: "moisture"),
        BTHomeObject(0x2E, "humidity", u(1), unit: "%", deviceClass: "humidity"),
        BTHomeObject(0x2F, "moisture", u(1), unit: "%", deviceClass: "moisture"),
        BTHomeObject(0x3D, "count", u(2)),
        BTHomeObject(0x3E, "count", u(4)),
        BTHomeObject(0x3F, "rotation", s(2), factor: 0.1, unit: "°"),
        BTHomeObject(0x40, "distance_mm", u(2), unit: "mm", deviceClass: "distance"),
        BTHomeObject(0x41, "distance_m", u(2), factor: 0.1, unit: "m", deviceClass: "distance"),
        BTHomeObject(0x42, "duration", u(3), factor: 0.001, unit: "s", deviceClass: "duration"),
        BTHomeObject(0x43, "current", u(2), factor: 0.001, unit: "A", deviceClass: "current"),
        BTHomeObject(0x44, "speed", u(2), factor: 0.01, unit: "m/s", deviceClass: "speed"),
        BTHomeObject(0x45, "temperature", s(2), factor: 0.1, unit: "°C", deviceClass: "temperature"),
        BTHomeObject(0x46, "uv_index", u(1), factor: 0.1),
        BTHomeObject(0x47, "volume", u(2), factor: 0.1, unit: "L", deviceClass: "volume"),
        BTHomeObject(0x48, "volume_ml", u(2), unit: "mL", deviceClass: "volume"),
        BTHomeObject(0x49, "volume_flow_rate", u(2), factor: 0.001, unit: "m³/h", deviceClass: "volume_flow_rate"),
        BTHomeObject(0x4A, "voltage", u(2), factor: 0.1, unit: "V", deviceClass: "voltage"),
        BTHomeObject(0x4B, "gas", u(3), factor: 0.001, unit: "m³", deviceClass: "gas"),
        BTHomeObject(0x4C, "gas", u(4), factor: 0.001, unit: "m³", deviceClass: "gas"),
        BTHomeObject(0x4D, "energy", u(4), factor: 0.001, unit: "kWh", deviceClass: "energy"),
        BTHomeObject(0x4E, "volume", u(4), factor: 0.001, unit: "L", deviceClass: "volume"),
        BTHomeObject(0x4F, "water", u(4), factor: 0.001, unit: "L", deviceClass: "water"),
        BTHomeObject(0x50, "timestamp", .timestamp, unit: "s"),
        BTHomeObject(0x51, "acceleration", u(2), factor: 0.001, unit: "m/s²"),
        BTHomeObject(0x52, "gyroscope", u(2), factor: 0.001, unit: "°/s"),
        BTHomeObject(0x53, "text", .text),
        BTHomeObject(0x54, "raw", .raw),
        BTHomeObject(0x55, "volume_storage", u(4), factor: 0.001, unit: "L", deviceClass: "volume_storage"),
        BTHomeObject(0x56, "conductivity", u(2), unit: "µS/cm", deviceClass: "conductivity"),
        BTHomeObject(0x57, "temperature", s(1), unit: "°C", deviceClass: "temperature"),
        BTHomeObject(0x58, "temperature", s(1), factor: 0.35, unit: "°C", deviceClass: "temperature"),
        BTHomeObject(0x59, "count", s(1)),
        BTHomeObject(0x5A, "count", s(2)),
        BTHomeObject(0x5B, "count", s(4)),
        BTHomeObject(0x5C, "power", s(4), factor: 0.01, unit: "W", deviceClass: "power"),
        BTHomeObject(0x5D, "current", s(2), factor: 0.001, unit: "A", deviceClass: "current"),
        BTHomeObject(0x5E, "direction", u(2), factor: 0.01, unit: "°", deviceClass: "wind_direction"),
        // The format page's table has shown factor 1 for precipitation while its example and
        // the reference parser (bthome-ble) use 0.1; 0.1 is what devices send.
        BTHomeObject(0x5F, "precipitation", u(2), factor: 0.1, unit: "mm", deviceClass: "precipitation"),
        BTHomeObject(0x60, "channel", u(1)),
        BTHomeObject(0x61, "rotational_speed", u(2), unit: "rpm"),
        BTHomeObject(0x62, "speed", s(4), factor: 0.000001, unit: "m/s", deviceClass: "speed"),
        BTHomeObject(0x63, "acceleration", s(4), factor: 0.000001, unit: "m/s²"),
        BTHomeObject(0x64, "light_level", u(1)),
    ]

    /// The binary sensor objects (one octet, 0 or 1); the key names the true state where the
    /// plain word would collide with a numeric sensor (`battery_low`, `power_on`).
    static let binarySensors: [BTHomeObject] = [
        BTHomeObject(0x0F, "generic_boolean", .binary),
        BTHomeObject(0x10, "power_on", .binary, deviceClass: "power"),
        BTHomeObject(0x11, "opening", .binary, deviceClass: "opening"),
        BTHomeObject(0x15, "battery_low", .binary, deviceClass: "battery"),
        BTHomeObject(0x16, "battery_charging", .binary, deviceClass: "battery_charging"),
        BTHomeObject(0x17, "carbon_monoxide", .binary, deviceClass: "carbon_monoxide"),
        BTHomeObject(0x18, "cold", .binary, deviceClass: "cold"),
        BTHomeObject(0x19, "connectivity", .binary, deviceClass: "connectivity"),
        BTHomeObject(0x1A, "door", .binary, deviceClass: "door"),
        BTHomeObject(0x1B, "garage_door", .binary, deviceClass: "garage_door"),
        BTHomeObject(0x1C, "gas_detected", .binary, deviceClass: "gas"),
        BTHomeObject(0x1D, "heat", .binary, deviceClass: "heat"),
        BTHomeObject(0x1E, "light", .binary, deviceClass: "light"),
        BTHomeObject(0x1F, "lock", .binary, deviceClass: "lock"),
        BTHomeObject(0x20, "moisture_detected", .binary, deviceClass: "moisture"),
        BTHomeObject(0x21, "motion", .binary, deviceClass: "motion"),
        BTHomeObject(0x22, "moving", .binary, deviceClass: "moving"),
        BTHomeObject(0x23, "occupancy", .binary, deviceClass: "occupancy"),
        BTHomeObject(0x24, "plug", .binary, deviceClass: "plug"),
        BTHomeObject(0x25, "presence", .binary, deviceClass: "presence"),
        BTHomeObject(0x26, "problem", .binary, deviceClass: "problem"),
        BTHomeObject(0x27, "running", .binary, deviceClass: "running"),
        BTHomeObject(0x28, "safety", .binary, deviceClass: "safety"),
        BTHomeObject(0x29, "smoke", .binary, deviceClass: "smoke"),
        BTHomeObject(0x2A, "sound", .binary, deviceClass: "sound"),
        BTHomeObject(0x2B, "tamper", .binary, deviceClass: "tamper"),
        BTHomeObject(0x2C, "vibration", .binary, deviceClass: "vibration"),
        BTHomeObject(0x2D, "window", .binary, deviceClass: "window"),
    ]

    /// The event objects (button presses, dimmer turns).
    static let events: [BTHomeObject] = [
        BTHomeObject(0x3A, "button", .buttonEvent),
        BTHomeObject(0x3C, "dimmer", .dimmerEvent),
    ]

    /// The device information objects (device type, firmware version).
    static let deviceInformation: [BTHomeObject] = [
        BTHomeObject(0xF0, "device_type_id", u(2)),
        BTHomeObject(0xF1, "firmware_version", .firmwareVersion(size: 4)),
        BTHomeObject(0xF2, "firmware_version", .firmwareVersion(size: 3)),
    ]

    /// The names of the button events by their octet (0x00 is "no event", for a device with
    /// several buttons that reports only some).
    static let buttonEvents: [UInt8: String] = [
        0x00: "none", 0x01: "press", 0x02: "double_press", 0x03: "triple_press", 0x04: "long_press",
        0x05: "long_double_press", 0x06: "long_triple_press", 0x80: "hold_press",
    ]

    /// The names of the dimmer events by their octet.
    static let dimmerEvents: [UInt8: String] = [0x00: "none", 0x01: "rotate_left", 0x02: "rotate_right"]
}
