import HaraldCodec
/// An Open GoPro command ID: the first byte of a request written to GP-0072 and of its response
/// on GP-0073. Unknown IDs are kept as they are.
public struct GoProCommandID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let setShutter = GoProCommandID(0x01)
    public static let setPairingComplete = GoProCommandID(0x03)
    public static let powerDown = GoProCommandID(0x04)
    public static let sleep = GoProCommandID(0x05)
    public static let setDateTime = GoProCommandID(0x0D)
    public static let getDateTime = GoProCommandID(0x0E)
    public static let setLocalDateTime = GoProCommandID(0x0F)
    public static let getLocalDateTime = GoProCommandID(0x10)
    public static let reboot = GoProCommandID(0x11)
    public static let setAccessPointControl = GoProCommandID(0x17)
    public static let hilightMoment = GoProCommandID(0x18)
    public static let pressButton = GoProCommandID(0x1B)
    public static let getSettingsJSON = GoProCommandID(0x3B)
    public static let getHardwareInfo = GoProCommandID(0x3C)
    public static let loadPresetGroup = GoProCommandID(0x3E)
    public static let loadPreset = GoProCommandID(0x40)
    public static let setAnalytics = GoProCommandID(0x50)
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
    public var description: String { name ?? "command 0x\(Hex.byte(rawValue))" }
}

/// An Open GoPro query ID: the first byte of a request written to GP-0076 and of its response
/// (or push) on GP-0077.
public struct GoProQueryID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let getSettingValues = GoProQueryID(0x12)
    public static let getStatusValues = GoProQueryID(0x13)
    public static let getSettingCapabilities = GoProQueryID(0x32)
    public static let registerSettingValueUpdates = GoProQueryID(0x52)
    public static let registerStatusValueUpdates = GoProQueryID(0x53)
    public static let registerSettingCapabilityUpdates = GoProQueryID(0x62)
    public static let unregisterSettingValueUpdates = GoProQueryID(0x72)
    public static let unregisterStatusValueUpdates = GoProQueryID(0x73)
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
    public var description: String { name ?? "query 0x\(Hex.byte(rawValue))" }
}
