/// The rules by which many gateways hearing the same devices agree on one owner per device.
///
/// The defaults are Home Assistant's habluetooth constants for choosing which scanner (an
/// ESPHome Bluetooth proxy, a local adapter) a device's advertisements are taken from: a
/// challenger takes a device over only when its smoothed RSSI is more than 16 dB above the
/// owner's (`ADV_RSSI_SWITCH_THRESHOLD`); a gateway that recently lost the device pays 6 dB more
/// to win it back, so a device halfway between two gateways stops bouncing (the reclaim deadband,
/// habluetooth pull request 585); RSSI is smoothed per gateway by an exponentially weighted
/// moving average with weight 0.3 on the new reading (pull request 584); and a device not heard
/// for 195 s is gone (`CONNECTABLE_FALLBACK_MAXIMUM_STALE_ADVERTISEMENT_SECONDS`), or 15 minutes
/// when its advertising interval is not known (`FALLBACK_MAXIMUM_STALE_ADVERTISEMENT_SECONDS`).
public struct FleetPolicy: Hashable, Sendable {
    /// How many dB a challenger's smoothed RSSI must exceed the owner's by to take the device
    /// over (strictly more than this). Default 16 dB.
    public var switchThreshold: Double
    /// How many dB more a gateway that lost the device (and has not owned it since) must add to
    /// the threshold to win it back. Default 6 dB.
    public var reclaimDeadband: Double
    /// The weight of a new reading in the smoothed RSSI, 0 < factor ≤ 1
    /// (`smoothed = factor × new + (1 − factor) × smoothed`); a value outside that range is
    /// replaced by the default, 0.3.
    public var smoothingFactor: Double
    /// How long a device whose advertising interval is known may go unheard before it is away.
    /// Default 195 s.
    public var staleTime: Duration
    /// How long a device whose advertising interval is not known may go unheard before it is
    /// away. Default 15 minutes.
    public var unknownIntervalStaleTime: Duration
    /// The most devices tracked at once; a new device beyond it makes the one heard longest ago
    /// go away. Default 10,000.
    public var maximumDevices: Int

    /// A policy; every default is habluetooth's (see the type's documentation).
    public init(
        switchThreshold: Double = 16, reclaimDeadband: Double = 6, smoothingFactor: Double = 0.3,
        staleTime: Duration = .seconds(195), unknownIntervalStaleTime: Duration = .seconds(15 * 60),
        maximumDevices: Int = 10_000
    ) {
        self.switchThreshold = switchThreshold
        self.reclaimDeadband = reclaimDeadband
        self.smoothingFactor = smoothingFactor > 0 && smoothingFactor <= 1 ? smoothingFactor : 0.3
        self.staleTime = staleTime
        self.unknownIntervalStaleTime = unknownIntervalStaleTime
        self.maximumDevices = max(1, maximumDevices)
    }
}
