import HaraldCodec
/// An Open GoPro command ID: the first byte of a request written to GP-0072 and of its response
/// on GP-0073. Unknown IDs are kept as they are.
public struct GoProCommandID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The command ID byte that starts the request and its response.
    public var rawValue: UInt8
    /// The command ID with this byte; IDs this library does not name are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A command ID from its byte.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Set Shutter: start (1) or stop (0) capturing.
    public static let setShutter = GoProCommandID(0x01)
    /// 0x03 Set Pairing Complete: tells the camera pairing finished.
    public static let setPairingComplete = GoProCommandID(0x03)
    /// 0x04 Power Down.
    public static let powerDown = GoProCommandID(0x04)
    /// 0x05 Sleep: the camera goes to sleep (the link drops).
    public static let sleep = GoProCommandID(0x05)
    /// 0x0D Set Date/Time.
    public static let setDateTime = GoProCommandID(0x0D)
    /// 0x0E Get Date/Time.
    public static let getDateTime = GoProCommandID(0x0E)
    /// 0x0F Set Local Date/Time: with time-zone offset and daylight saving.
    public static let setLocalDateTime = GoProCommandID(0x0F)
    /// 0x10 Get Local Date/Time.
    public static let getLocalDateTime = GoProCommandID(0x10)
    /// 0x11 Reboot.
    public static let reboot = GoProCommandID(0x11)
    /// 0x17 Set AP Control: the camera's Wi-Fi access point on or off.
    public static let setAccessPointControl = GoProCommandID(0x17)
    /// 0x18 Hilight Moment: tag the current moment of a recording.
    public static let hilightMoment = GoProCommandID(0x18)
    /// 0x1B Press Button.
    public static let pressButton = GoProCommandID(0x1B)
    /// 0x3B Get Settings JSON.
    public static let getSettingsJSON = GoProCommandID(0x3B)
    /// 0x3C Get Hardware Info: model, firmware, serial number, AP name.
    public static let getHardwareInfo = GoProCommandID(0x3C)
    /// 0x3E Load Preset Group: video, photo or timelapse.
    public static let loadPresetGroup = GoProCommandID(0x3E)
    /// 0x40 Load Preset: by preset ID.
    public static let loadPreset = GoProCommandID(0x40)
    /// 0x50 Set Analytics: announce a third-party client.
    public static let setAnalytics = GoProCommandID(0x50)
    /// 0x51 Get Open GoPro Version.
    public static let getOpenGoProVersion = GoProCommandID(0x51)

    /// Every named command ID with its name.
    public static let names: [UInt8: String] = [
        0x01: "Set Shutter", 0x03: "Set Pairing Complete", 0x04: "Power Down", 0x05: "Sleep",
        0x0D: "Set Date Time", 0x0E: "Get Date Time", 0x0F: "Set Local Date Time", 0x10: "Get Local Date Time",
        0x11: "Reboot", 0x17: "Set AP Control", 0x18: "Hilight Moment", 0x1B: "Press Button",
        0x3B: "Get Settings JSON", 0x3C: "Get Hardware Info", 0x3E: "Load Preset Group", 0x40: "Load Preset",
        0x50: "Set Analytics", 0x51: "Get Open GoPro Version",
    ]

    /// The command's name, or nil for an ID this library does not know.
    public var name: String? { Self.names[rawValue] }
    /// The command's name, e.g. `Set Shutter`, or `command 0x` and the byte in hex for an unknown ID.
    public var description: String { name ?? "command 0x\(Hex.byte(rawValue))" }
}

/// An Open GoPro query ID: the first byte of a request written to GP-0076 and of its response
/// (or push) on GP-0077.
public struct GoProQueryID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The query ID byte that starts the request and its response or push.
    public var rawValue: UInt8
    /// The query ID with this byte; IDs this library does not name are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A query ID from its byte.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x12 Get Setting Values.
    public static let getSettingValues = GoProQueryID(0x12)
    /// 0x13 Get Status Values.
    public static let getStatusValues = GoProQueryID(0x13)
    /// 0x32 Get Setting Capabilities: the values each setting allows now.
    public static let getSettingCapabilities = GoProQueryID(0x32)
    /// 0x52 Register for Setting Value Updates (pushed as 0x92).
    public static let registerSettingValueUpdates = GoProQueryID(0x52)
    /// 0x53 Register for Status Value Updates (pushed as 0x93).
    public static let registerStatusValueUpdates = GoProQueryID(0x53)
    /// 0x62 Register for Setting Capability Updates (pushed as 0xA2).
    public static let registerSettingCapabilityUpdates = GoProQueryID(0x62)
    /// 0x72 Unregister Setting Value Updates.
    public static let unregisterSettingValueUpdates = GoProQueryID(0x72)
    /// 0x73 Unregister Status Value Updates.
    public static let unregisterStatusValueUpdates = GoProQueryID(0x73)
    /// 0x82 Unregister Setting Capability Updates.
    public static let unregisterSettingCapabilityUpdates = GoProQueryID(0x82)
    /// Push: a registered setting changed.
    public static let settingValuePush = GoProQueryID(0x92)
    /// Push: a registered status changed.
    public static let statusValuePush = GoProQueryID(0x93)
    /// Push: a registered setting's capabilities (allowed values) changed.
    public static let settingCapabilityPush = GoProQueryID(0xA2)

    /// Every named query ID with its name.
    public static let names: [UInt8: String] = [
        0x12: "Get Setting Values", 0x13: "Get Status Values", 0x32: "Get Setting Capabilities",
        0x52: "Register Setting Value Updates", 0x53: "Register Status Value Updates",
        0x62: "Register Setting Capability Updates", 0x72: "Unregister Setting Values",
        0x73: "Unregister Status Values", 0x82: "Unregister Setting Capabilities",
        0x92: "Setting Value Push", 0x93: "Status Value Push", 0xA2: "Setting Capability Push",
    ]

    /// True for the three push IDs (0x92, 0x93, 0xA2).
    public var isPush: Bool { rawValue == 0x92 || rawValue == 0x93 || rawValue == 0xA2 }
    /// The query's name, or nil for an ID this library does not know.
    public var name: String? { Self.names[rawValue] }
    /// The query's name, e.g. `Get Setting Values`, or `query 0x` and the byte in hex for an unknown ID.
    public var description: String { name ?? "query 0x\(Hex.byte(rawValue))" }
}
