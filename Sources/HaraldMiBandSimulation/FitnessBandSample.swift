/// One minute of the simulated band's activity history, as it goes on the wire: category,
/// intensity, steps, heart rate — 4 bytes (protocols.md B.5). A heart rate of 0xFF means none was
/// measured that minute.
public struct FitnessBandSample: Hashable, Sendable {
    /// The activity category byte.
    public var category: UInt8
    /// The movement intensity byte.
    public var intensity: UInt8
    /// Steps in that minute.
    public var steps: UInt8
    /// Heart rate in beats per minute (0xFF: not measured).
    public var heartRate: UInt8

    /// A minute of history.
    public init(category: UInt8, intensity: UInt8, steps: UInt8, heartRate: UInt8) {
        self.category = category
        self.intensity = intensity
        self.steps = steps
        self.heartRate = heartRate
    }

    /// The 4 bytes of the sample.
    public var bytes: [UInt8] { [category, intensity, steps, heartRate] }

    /// The band's sample for minute `index` of its history: a deterministic day-like pattern of
    /// rest, walks and a run, heart rate measured every tenth minute (the same history as the
    /// Bumble band of scripts/bumble/miband_peer.py).
    public static func minute(_ index: Int) -> FitnessBandSample {
        let phase = index % 90
        let steps: UInt8 = phase < 50 ? 0 : phase < 80 ? UInt8(60 + (index * 7) % 40) : UInt8(140 + (index * 3) % 30)
        let category: UInt8 = steps == 0 ? 0x01 : steps < 120 ? 0x11 : 0x12
        let intensity = UInt8(truncatingIfNeeded: Int(steps) / 2 + (index * 13) % 16)
        let rate: UInt8 = index % 10 == 0 ? UInt8(60 + Int(steps) / 3) : 0xFF
        return FitnessBandSample(category: category, intensity: intensity, steps: steps, heartRate: rate)
    }
}
