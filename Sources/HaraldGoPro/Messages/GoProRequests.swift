import HaraldCodec

/// A command written to GP-0072: `[command id]` then `[length][value]` per parameter.
public struct GoProCommand: Sendable, Hashable {
    /// Which command.
    public var id: GoProCommandID
    /// The parameters, each at most 255 bytes.
    public var parameters: [[UInt8]]

    /// A command with its parameters, each sent as a length-prefixed field.
    public init(_ id: GoProCommandID, parameters: [[UInt8]] = []) {
        self.id = id
        self.parameters = parameters
    }

    /// The message bytes (before packetizing). Throws when a parameter exceeds 255 bytes.
    public func encoded() throws(ByteEncodingError) -> [UInt8] {
        var bytes = [id.rawValue]
        for (index, parameter) in parameters.enumerated() {
            guard parameter.count <= 255 else {
                throw ByteEncodingError(field: "parameters[\(index)]", detail: "\(parameter.count) bytes, at most 255")
            }
            bytes.append(UInt8(parameter.count))
            bytes.append(contentsOf: parameter)
        }
        return bytes
    }

    /// Starts (`true`) or stops recording: `01 01 01` / `01 01 00`.
    public static func setShutter(on: Bool) -> GoProCommand { GoProCommand(.setShutter, parameters: [[on ? 1 : 0]]) }
    /// Puts the camera to sleep.
    public static let sleep = GoProCommand(.sleep)
    /// Asks for model, firmware, serial number and access point; success also means the camera
    /// is ready for BLE commands.
    public static let getHardwareInfo = GoProCommand(.getHardwareInfo)
    /// Asks for the Open GoPro API version.
    public static let getOpenGoProVersion = GoProCommand(.getOpenGoProVersion)
    /// Loads a preset group (1000 video, 1001 photo, 1002 time-lapse): 2-byte big-endian value.
    public static func loadPresetGroup(_ group: UInt16) -> GoProCommand {
        GoProCommand(.loadPresetGroup, parameters: [[UInt8(group >> 8), UInt8(group & 0xFF)]])
    }
    /// Turns the camera's Wi-Fi access point on or off.
    public static func setAccessPointControl(on: Bool) -> GoProCommand {
        GoProCommand(.setAccessPointControl, parameters: [[on ? 1 : 0]])
    }
}

/// A setting change written to GP-0074: `[setting id][length][value]`; the answer on GP-0075 is
/// a ``GoProResponse`` whose ID is the setting.
public struct GoProSettingRequest: Sendable, Hashable {
    /// Which setting.
    public var setting: GoProSettingID
    /// The new value (most settings take one byte).
    public var value: [UInt8]

    /// A request setting `setting` to `value` (the setting's option ID, usually one byte).
    public init(_ setting: GoProSettingID, value: [UInt8]) {
        self.setting = setting
        self.value = value
    }

    /// A one-byte setting value.
    public init(_ setting: GoProSettingID, value: UInt8) {
        self.init(setting, value: [value])
    }

    /// The message bytes. Throws when the value exceeds 255 bytes.
    public func encoded() throws(ByteEncodingError) -> [UInt8] {
        guard value.count <= 255 else { throw ByteEncodingError(field: "value", detail: "\(value.count) bytes, at most 255") }
        return [setting.rawValue, UInt8(value.count)] + value
    }

    /// The keep-alive, to send on GP-0074 every 3 seconds: setting 91 (LED) = 0x42, `5B 01 42`.
    public static let keepAlive = GoProSettingRequest(.led, value: 0x42)
}

/// A query written to GP-0076: `[query id][id…]`; an empty ID list means "all".
public struct GoProQuery: Sendable, Hashable {
    /// Which query.
    public var id: GoProQueryID
    /// The setting or status IDs asked for; empty for all.
    public var elementIDs: [UInt8]

    /// A query for the statuses or settings `elementIDs` (none: all of them).
    public init(_ id: GoProQueryID, elementIDs: [UInt8] = []) {
        self.id = id
        self.elementIDs = elementIDs
    }

    /// The message bytes.
    public func encoded() -> [UInt8] { [id.rawValue] + elementIDs }

    /// Current values of `settings` (all when empty).
    public static func getSettingValues(_ settings: [GoProSettingID] = []) -> GoProQuery {
        GoProQuery(.getSettingValues, elementIDs: settings.map(\.rawValue))
    }
    /// Current values of `statuses` (all when empty).
    public static func getStatusValues(_ statuses: [GoProStatusID] = []) -> GoProQuery {
        GoProQuery(.getStatusValues, elementIDs: statuses.map(\.rawValue))
    }
    /// Allowed values of `settings` (all when empty).
    public static func getSettingCapabilities(_ settings: [GoProSettingID] = []) -> GoProQuery {
        GoProQuery(.getSettingCapabilities, elementIDs: settings.map(\.rawValue))
    }
    /// Pushes (0x92) when `settings` change; the response carries their current values.
    public static func registerSettingValueUpdates(_ settings: [GoProSettingID]) -> GoProQuery {
        GoProQuery(.registerSettingValueUpdates, elementIDs: settings.map(\.rawValue))
    }
    /// Pushes (0x93) when `statuses` change; the response carries their current values.
    public static func registerStatusValueUpdates(_ statuses: [GoProStatusID]) -> GoProQuery {
        GoProQuery(.registerStatusValueUpdates, elementIDs: statuses.map(\.rawValue))
    }
    /// Pushes (0xA2) when the allowed values of `settings` change.
    public static func registerSettingCapabilityUpdates(_ settings: [GoProSettingID]) -> GoProQuery {
        GoProQuery(.registerSettingCapabilityUpdates, elementIDs: settings.map(\.rawValue))
    }
    /// Stops setting value pushes.
    public static func unregisterSettingValueUpdates(_ settings: [GoProSettingID]) -> GoProQuery {
        GoProQuery(.unregisterSettingValueUpdates, elementIDs: settings.map(\.rawValue))
    }
    /// Stops status value pushes.
    public static func unregisterStatusValueUpdates(_ statuses: [GoProStatusID]) -> GoProQuery {
        GoProQuery(.unregisterStatusValueUpdates, elementIDs: statuses.map(\.rawValue))
    }
    /// Stops setting capability pushes.
    public static func unregisterSettingCapabilityUpdates(_ settings: [GoProSettingID]) -> GoProQuery {
        GoProQuery(.unregisterSettingCapabilityUpdates, elementIDs: settings.map(\.rawValue))
    }
}
