import HaraldCodec

/// The band's services and characteristics (protocols.md B.1): Huami's own on the base
/// `0000XXXX-0000-3512-2118-0009AF100700`, the heart-rate ones standard SIG UUIDs.
enum BandUUID {
    static func huami(_ short: UInt16) -> BluetoothUUID {
        let hex = String(short, radix: 16, uppercase: true)
        return BluetoothUUID("0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-3512-2118-0009AF100700")!
    }

    /// "MiBand service": battery, steps, activity fetch.
    static let service = BluetoothUUID(0xFEE0)
    /// "MiBand2 service": authentication.
    static let authService = BluetoothUUID(0xFEE1)
    static let heartRateService = BluetoothUUID(0x180D)
    static let activityControl = huami(0x0004)
    static let activityData = huami(0x0005)
    static let batteryInfo = huami(0x0006)
    static let realtimeSteps = huami(0x0007)
    static let auth = huami(0x0009)
    static let heartRateMeasurement = BluetoothUUID(0x2A37)
    static let heartRateControlPoint = BluetoothUUID(0x2A39)
}
