import Harald
import HaraldProfiles

extension MiBand2 {
    /// The band's characteristics as typed specs for `PeripheralConnection`.
    public enum Characteristics {
        /// Auth (0x0009 in 0xFEE1): ``MiBandAuthCommand``s in, ``MiBandAuthReply``s notified.
        public static let auth = Characteristic<[UInt8], WriteNotify>(MiBandUUID.auth, service: MiBandUUID.authService)
        /// Realtime steps (0x0007): steps, metres, kilocalories; read, and notified while they change.
        public static let realtimeSteps = Characteristic<MiBandRealtimeSteps, ReadNotify>(MiBandUUID.realtimeSteps, service: MiBandUUID.service)
        /// Battery info (0x0006): level, charging state, last charge.
        public static let batteryInfo = Characteristic<MiBandBatteryInfo, Read>(MiBandUUID.batteryInfo, service: MiBandUUID.service)
        /// Activity fetch control (0x0004): ``MiBandActivityFetchCommand``s in, ``MiBandActivityFetchReply``s notified.
        public static let activityControl = Characteristic<[UInt8], WriteNotify>(MiBandUUID.activityControl, service: MiBandUUID.service)
        /// Activity data (0x0005): ``MiBandActivityPacket``s notified during a fetch.
        public static let activityData = Characteristic<[UInt8], Notify>(MiBandUUID.activityData, service: MiBandUUID.service)
        /// Heart Rate Measurement (0x2A37): the band notifies `00 <bpm>`.
        public static let heartRateMeasurement = Characteristic<HeartRateMeasurement, Notify>(
            MiBandUUID.heartRateMeasurement, service: MiBandUUID.heartRateService)
        /// Heart Rate Control Point (0x2A39): ``MiBandHeartRateCommand``s.
        public static let heartRateControl = Characteristic<MiBandHeartRateCommand, Write>(
            MiBandUUID.heartRateControlPoint, service: MiBandUUID.heartRateService)
    }

    /// The services the kit uses, to declare when connecting.
    public static let services: [ServiceSpec] = [
        ServiceSpec(
            MiBandUUID.service,
            characteristics: [
                MiBandUUID.activityControl, MiBandUUID.activityData, MiBandUUID.batteryInfo, MiBandUUID.realtimeSteps,
            ]),
        ServiceSpec(MiBandUUID.authService, characteristics: [MiBandUUID.auth]),
        ServiceSpec(MiBandUUID.heartRateService, characteristics: [MiBandUUID.heartRateMeasurement, MiBandUUID.heartRateControlPoint]),
    ]
}
