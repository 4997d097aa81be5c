import Harald
import HaraldProfiles

/// One Heart Rate Measurement (0x2A37) as an app uses it: beats per minute, skin contact, energy
/// expended and the RR intervals in seconds.
public struct HeartRateReading: Hashable, Sendable {
    /// Heart rate in beats per minute.
    public var beatsPerMinute: Int
    /// Whether the sensor touches the skin (`.notSupported` when it cannot tell).
    public var sensorContact: HeartRateMeasurement.SensorContact
    /// Energy expended since the last reset, in kilojoules, when the sensor sends it (straps
    /// send it every tenth measurement or so; it saturates at 65535 kJ).
    public var energyExpended: Int?
    /// Time between successive R waves of the ECG, in seconds, oldest first (the wire unit is
    /// 1/1024 s). Empty when the sensor sent none with this measurement.
    public var rrIntervals: [Double]
    /// The decoded characteristic value, with its exact wire form (format, raw RR units).
    public var measurement: HeartRateMeasurement

    /// A reading from a decoded Heart Rate Measurement.
    public init(_ measurement: HeartRateMeasurement) {
        self.measurement = measurement
        beatsPerMinute = Int(measurement.heartRate)
        sensorContact = measurement.sensorContact
        energyExpended = measurement.energyExpended.map(Int.init)
        rrIntervals = measurement.rrIntervals.seconds
    }

    /// The RR intervals in whole milliseconds, rounded.
    public var rrIntervalsMilliseconds: [Int] { rrIntervals.map { Int(($0 * 1000).rounded()) } }

    /// False when the sensor reports it has lost skin contact (its heart rate is then a guess).
    public var hasContact: Bool { sensorContact != .notDetected }
}
