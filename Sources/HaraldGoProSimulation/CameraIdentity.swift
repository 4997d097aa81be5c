/// What the camera says about itself in Get Hardware Info (protocols.md A.6).
struct CameraIdentity: Sendable {
    var modelNumber: UInt32 = 62
    var modelName = "HERO12 Black"
    var firmware = "H23.01.01.10.00"
    var serial = "C3501324500042"
    var accessPointSSID = "GP24500042"
    var accessPointMAC = "0441693db024"

    /// The answer to Get Hardware Info: `3C 00`, then length-value fields — model number (4 bytes,
    /// big-endian), model name, a deprecated "0x05", firmware, serial, AP SSID, AP MAC — and the
    /// 11 reserved bytes a HERO12 sends.
    var hardwareInfo: [UInt8] {
        func field(_ text: String) -> [UInt8] { [UInt8(text.utf8.count)] + Array(text.utf8) }
        return [CameraCommandID.getHardwareInfo, CameraResponseStatus.success, 4] + CameraValueTable.uint32(modelNumber)
            + field(modelName) + field("0x05") + field(firmware) + field(serial) + field(accessPointSSID) + field(accessPointMAC)
            + [0x01, 0x00, 0x01, 0x01, 0x01, 0x00, 0x02, 0x5B, 0x5D, 0x01, 0x01]
    }
}
