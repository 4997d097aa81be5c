/// The Open GoPro identifiers the simulated camera understands (protocols.md A.4 and A.5), kept
/// here as plain bytes so the camera is written from the protocol, not from the camera kit.
enum CameraCommandID {
    static let setShutter: UInt8 = 0x01
    static let sleep: UInt8 = 0x05
    static let setAccessPointControl: UInt8 = 0x17
    static let hilightMoment: UInt8 = 0x18
    static let getHardwareInfo: UInt8 = 0x3C
    static let loadPresetGroup: UInt8 = 0x3E
    static let getOpenGoProVersion: UInt8 = 0x51
}

/// Query IDs (GP-0076 → GP-0077), and the pushes the camera sends on its own.
enum CameraQueryID {
    static let getSettingValues: UInt8 = 0x12
    static let getStatusValues: UInt8 = 0x13
    static let getSettingCapabilities: UInt8 = 0x32
    static let registerSettingValues: UInt8 = 0x52
    static let registerStatusValues: UInt8 = 0x53
    static let registerSettingCapabilities: UInt8 = 0x62
    static let unregisterSettingValues: UInt8 = 0x72
    static let unregisterStatusValues: UInt8 = 0x73
    static let unregisterSettingCapabilities: UInt8 = 0x82
    static let settingValuePush: UInt8 = 0x92
    static let statusValuePush: UInt8 = 0x93
    static let settingCapabilityPush: UInt8 = 0xA2
}

/// Setting IDs (GP-0074) the camera has.
enum CameraSettingID {
    static let videoResolution: UInt8 = 2
    static let framesPerSecond: UInt8 = 3
    static let autoPowerDown: UInt8 = 59
    /// LED; "set LED to 0x42" is the keep-alive (`03 5B 01 42`).
    static let led: UInt8 = 91
    static let lens: UInt8 = 121
    /// The keep-alive value of the LED setting.
    static let keepAliveValue: UInt8 = 0x42
    /// The resolution value of 5K.
    static let resolution5K: UInt8 = 24
}

/// Status IDs the camera changes as it records.
enum CameraStatusID {
    static let busy: UInt8 = 8
    static let encoding: UInt8 = 10
    static let videoProgress: UInt8 = 13
    static let videoTimeLeft: UInt8 = 35
    static let internalBatteryPercentage: UInt8 = 70
}

/// The status byte of a response: 0 success, 1 error, 2 invalid parameter.
enum CameraResponseStatus {
    static let success: UInt8 = 0
    static let error: UInt8 = 1
    static let invalidParameter: UInt8 = 2
}
