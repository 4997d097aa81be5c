/// Speed, cadence and distance between two Cycling Speed and Cadence measurements.
///
/// Counters and event times are differences modulo their width, so a 16-bit event time that
/// rolled over (every 64 s) or a 32-bit wheel counter that wrapped still gives the right answer,
/// as long as less than one full period passed between the samples.
public struct CyclingMotion: Hashable, Sendable {
    /// Wheel revolutions between the samples.
    public var wheelRevolutions: UInt32?
    /// Time between the last wheel events of the samples, in seconds.
    public var wheelEventSeconds: Double?
    /// Crank revolutions between the samples.
    public var crankRevolutions: UInt16?
    /// Time between the last crank events of the samples, in seconds.
    public var crankEventSeconds: Double?
    /// Wheel circumference used, in metres.
    public var wheelCircumference: Double

    /// Compares `current` with the `previous` measurement of the same sensor.
    ///
    /// - Parameter previous: the earlier measurement.
    /// - Parameter current: the later one; counters that wrapped between the two are handled.
    /// - Parameter wheelCircumference: the wheel's circumference in metres (2.34 m for a
    ///   700×35c tyre, say).
    public init(from previous: CSCMeasurement, to current: CSCMeasurement, wheelCircumference: Double) {
        self.wheelCircumference = wheelCircumference
        if let old = previous.wheel, let new = current.wheel {
            wheelRevolutions = new.cumulativeRevolutions &- old.cumulativeRevolutions
            wheelEventSeconds = Double(new.lastEventTime &- old.lastEventTime) / 1024
        }
        if let old = previous.crank, let new = current.crank {
            crankRevolutions = new.cumulativeRevolutions &- old.cumulativeRevolutions
            crankEventSeconds = Double(new.lastEventTime &- old.lastEventTime) / 1024
        }
    }

    /// Distance travelled between the samples, in metres.
    public var distance: Double? { wheelRevolutions.map { Double($0) * wheelCircumference } }

    /// Speed in metres per second; nil without wheel data or when no new wheel event happened.
    public var speed: Double? {
        guard let distance, let seconds = wheelEventSeconds, seconds > 0 else { return nil }
        return distance / seconds
    }

    /// Cadence in revolutions per minute; nil without crank data or when no new crank event
    /// happened.
    public var cadence: Double? {
        guard let revolutions = crankRevolutions, let seconds = crankEventSeconds, seconds > 0 else { return nil }
        return Double(revolutions) * 60 / seconds
    }

    /// Wheel revolutions per crank revolution; nil unless both moved.
    public var gearRatio: Double? {
        guard let wheel = wheelRevolutions, let crank = crankRevolutions, crank > 0 else { return nil }
        return Double(wheel) / Double(crank)
    }
}
