/// An Open GoPro status ID (camera state reported by queries 0x13/0x53 and pushes 0x93).
///
/// Named constants cover the commonly used statuses of the Open GoPro ID tables; any other ID is
/// kept as its raw value.
public struct GoProStatusID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The status ID byte of an ID-length-value triplet.
    public var rawValue: UInt8
    /// The status ID with this byte; IDs this library does not name are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A status ID from its byte.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Is the battery present (bool).
    public static let batteryPresent = GoProStatusID(1)
    /// Internal battery level in bars: 0…3, 4 = charging.
    public static let internalBatteryBars = GoProStatusID(2)
    /// The camera is too hot (bool).
    public static let systemHot = GoProStatusID(6)
    /// The camera is busy (bool).
    public static let busy = GoProStatusID(8)
    /// The camera is recording (bool).
    public static let encoding = GoProStatusID(10)
    /// Seconds of the video being recorded.
    public static let videoEncodingDuration = GoProStatusID(13)
    /// Wireless connectivity enabled (bool).
    public static let wirelessEnabled = GoProStatusID(17)
    /// Pairing state.
    public static let pairingState = GoProStatusID(19)
    /// SSID of the access point the camera is connected to (string, empty when none).
    public static let connectedWiFiSSID = GoProStatusID(29)
    /// SSID of the camera's own access point (string).
    public static let accessPointSSID = GoProStatusID(30)
    /// Number of connected wireless devices.
    public static let connectedDevices = GoProStatusID(31)
    /// Primary storage (SD card) state.
    public static let primaryStorageStatus = GoProStatusID(33)
    /// Photos that still fit on the card.
    public static let remainingPhotos = GoProStatusID(34)
    /// Seconds of video that still fit on the card.
    public static let remainingVideoTime = GoProStatusID(35)
    /// Photos on the card.
    public static let photoCount = GoProStatusID(38)
    /// Videos on the card.
    public static let videoCount = GoProStatusID(39)
    /// Free space on the card, in kilobytes.
    public static let remainingSpace = GoProStatusID(54)
    /// Wi-Fi signal bars.
    public static let wifiBars = GoProStatusID(56)
    /// Shortest interval between status polls, in milliseconds.
    public static let minimumStatusPollPeriod = GoProStatusID(60)
    /// GPS lock (bool).
    public static let gpsLock = GoProStatusID(68)
    /// The camera's access point is on (bool).
    public static let accessPointMode = GoProStatusID(69)
    /// Internal battery charge, in percent.
    public static let internalBatteryPercentage = GoProStatusID(70)
    /// The camera is ready for commands (bool).
    public static let systemReady = GoProStatusID(82)
    /// The active preset group.
    public static let activePresetGroup = GoProStatusID(96)
    /// The active preset.
    public static let activePreset = GoProStatusID(97)
    /// Camera control status (idle, camera, external control).
    public static let cameraControlStatus = GoProStatusID(114)
    /// USB connected (bool).
    public static let usbConnected = GoProStatusID(115)

    /// Every named status ID with its name.
    public static let names: [UInt8: String] = [
        1: "batteryPresent", 2: "internalBatteryBars", 6: "systemHot", 8: "busy", 10: "encoding",
        13: "videoEncodingDuration", 17: "wirelessEnabled", 19: "pairingState", 29: "connectedWiFiSSID",
        30: "accessPointSSID", 31: "connectedDevices", 33: "primaryStorageStatus", 34: "remainingPhotos",
        35: "remainingVideoTime", 38: "photoCount", 39: "videoCount", 54: "remainingSpace", 56: "wifiBars",
        60: "minimumStatusPollPeriod", 68: "gpsLock", 69: "accessPointMode", 70: "internalBatteryPercentage",
        82: "systemReady", 96: "activePresetGroup", 97: "activePreset", 114: "cameraControlStatus",
        115: "usbConnected",
    ]

    /// The status's name (as the constant is spelled), or nil for an ID this library does not know.
    public var name: String? { Self.names[rawValue] }
    /// The constant's name, e.g. `internalBatteryBars`, or `status` and the decimal ID for an unknown one.
    public var description: String { name ?? "status \(rawValue)" }
    /// Orders by the ID byte.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// An Open GoPro setting ID (set with GP-0074, read with queries 0x12/0x52, pushed with 0x92).
///
/// Named constants cover the commonly used settings; any other ID is kept as its raw value.
public struct GoProSettingID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The setting ID byte of an ID-length-value triplet.
    public var rawValue: UInt8
    /// The setting ID with this byte; IDs this library does not name are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A setting ID from its byte.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Video resolution (9 = 1080, 4 = 2.7K, 24 = 5K, …).
    public static let videoResolution = GoProSettingID(2)
    /// Frames per second (0 = 240, 5 = 60, 10 = 24, …).
    public static let framesPerSecond = GoProSettingID(3)
    /// Auto power down.
    public static let autoPowerDown = GoProSettingID(59)
    /// LED; also the keep-alive's setting ID (value 0x42).
    public static let led = GoProSettingID(91)
    /// Video lens (0 = wide, …).
    public static let videoLens = GoProSettingID(121)
    /// Photo lens.
    public static let photoLens = GoProSettingID(122)
    /// Time-lapse lens.
    public static let timeLapseLens = GoProSettingID(123)
    /// Anti-flicker.
    public static let antiFlicker = GoProSettingID(134)
    /// HyperSmooth stabilisation.
    public static let hypersmooth = GoProSettingID(135)

    /// Every named setting ID with its name.
    public static let names: [UInt8: String] = [
        2: "videoResolution", 3: "framesPerSecond", 59: "autoPowerDown", 91: "led", 121: "videoLens",
        122: "photoLens", 123: "timeLapseLens", 134: "antiFlicker", 135: "hypersmooth",
    ]

    /// The setting's name (as the constant is spelled), or nil for an ID this library does not know.
    public var name: String? { Self.names[rawValue] }
    /// The constant's name, e.g. `videoResolution`, or `setting` and the decimal ID for an unknown one.
    public var description: String { name ?? "setting \(rawValue)" }
    /// Orders by the ID byte.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
