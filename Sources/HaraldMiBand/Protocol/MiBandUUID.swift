import HaraldCodec

/// The Mi Band 2 (Huami) service and characteristic UUIDs.
///
/// Huami's own characteristics live on the base `0000XXXX-0000-3512-2118-0009AF100700`; the
/// heart-rate ones are the standard SIG characteristics.
public enum MiBandUUID {
    /// A Huami characteristic UUID: `0000XXXX-0000-3512-2118-0009AF100700`.
    public static func huami(_ short: UInt16) -> BluetoothUUID {
        let hex = String(short, radix: 16, uppercase: true)
        return BluetoothUUID("0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-3512-2118-0009AF100700")!
    }

    /// The "MiBand service" (0xFEE0): battery info, realtime steps, activity fetch.
    public static let service = BluetoothUUID(0xFEE0)
    /// The "MiBand2 service" (0xFEE1): authentication.
    public static let authService = BluetoothUUID(0xFEE1)
    /// Heart Rate service (0x180D).
    public static let heartRateService = BluetoothUUID(0x180D)

    /// Activity fetch control (0x0004): write fetch commands, notified replies.
    public static let activityControl = huami(0x0004)
    /// Activity data (0x0005): notified packets of per-minute samples.
    public static let activityData = huami(0x0005)
    /// Battery info (0x0006): read.
    public static let batteryInfo = huami(0x0006)
    /// Realtime steps (0x0007): read and notify.
    public static let realtimeSteps = huami(0x0007)
    /// Authentication (0x0009, in 0xFEE1): write commands, notified replies.
    public static let auth = huami(0x0009)
    /// Heart Rate Measurement (0x2A37): notified `00 <bpm>`.
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    /// Heart Rate Control Point (0x2A39): the band's measurement commands.
    public static let heartRateControlPoint = BluetoothUUID(0x2A39)
}
