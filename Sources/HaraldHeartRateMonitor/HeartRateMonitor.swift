import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles

/// Any Bluetooth SIG heart-rate sensor (chest strap, arm band, watch in broadcast mode) over an
/// open `PeripheralConnection`: the Heart Rate service (0x180D) and, when present, Battery
/// (0x180F).
///
/// ```swift
/// let monitor = HeartRateMonitor(connection: try await central.connect(to: strap))
/// for try await reading in try await monitor.readings() {
///     print(reading.beatsPerMinute, reading.rrIntervals)
/// }
/// ```
///
/// Every operation throws ``HeartRateMonitorError`` and ends within its timeout (the
/// connection's default unless given); measurement streams also end when the sensor stays
/// silent for their stall timeout.
public struct HeartRateMonitor: Sendable {
    /// The connection to the sensor. The monitor never closes it: the caller owns it.
    public let connection: PeripheralConnection
    /// Timeout of each read and write (nil: the connection's `defaultTimeout`).
    public var timeout: Duration?

    /// The services the kit uses, declared so one discovery finds them all.
    public static let services: [ServiceSpec] = [.heartRate, .battery]

    /// A monitor on `connection`; `timeout` bounds each read and write (nil: the connection's
    /// `defaultTimeout`).
    public init(connection: PeripheralConnection, timeout: Duration? = nil) {
        self.connection = connection
        self.timeout = timeout
    }

    /// Connects to a sensor and returns its monitor. `timeout` bounds the connect and then each
    /// of the monitor's reads and writes; with none the connect is pending (it waits for the
    /// sensor without limit, until the calling task is cancelled) and reads and writes take the
    /// connection's `defaultTimeout`.
    public static func connect(
        on central: Central, to peripheral: PeripheralIdentifier, timeout: Duration? = nil
    ) async throws(HeartRateMonitorError) -> HeartRateMonitor {
        do {
            let connection = try await central.connect(to: peripheral, services: services, timeout: timeout)
            return HeartRateMonitor(connection: connection, timeout: timeout)
        } catch { throw .from(error) }
    }

    // MARK: Measurements

    /// Turns on Heart Rate Measurement (0x2A37) notifications and returns the readings as they
    /// arrive (about one a second on most sensors).
    ///
    /// - Parameters:
    ///   - stallTimeout: the stream throws ``HeartRateMonitorError/timeout(operation:after:)`` and
    ///     ends when no measurement arrives for this long (nil: wait as long as the link lasts).
    ///   - buffering: what to keep when the consumer falls behind.
    public func readings(stallTimeout: Duration? = .seconds(5), buffering: UpdateBuffering = .default) async throws(HeartRateMonitorError)
        -> HeartRateReadings
    {
        await connection.declare(Self.services)
        do {
            let subscription = try await connection.subscribe(.heartRateMeasurement, buffering: buffering, timeout: timeout)
            return HeartRateReadings(subscription: subscription, connection: connection, stallTimeout: stallTimeout)
        } catch { throw .from(error, missing: "Heart Rate Measurement notifications") }
    }

    /// Ends a measurement stream: its loop finishes normally, and notifications are turned off
    /// when no other stream of this characteristic remains.
    public func stop(_ readings: HeartRateReadings) async {
        await connection.unsubscribe(readings.subscription)
    }

    // MARK: Control point

    /// Resets the sensor's energy-expended total to 0 kJ through the Heart Rate Control Point
    /// (0x2A39, op code 0x01).
    ///
    /// Throws ``HeartRateMonitorError/notSupported(_:)`` when the sensor has no control point and
    /// ``HeartRateMonitorError/controlPointNotSupported(_:)`` when it refuses the command (ATT
    /// error 0x80), as sensors that do not measure energy expended do.
    public func resetEnergyExpended() async throws(HeartRateMonitorError) {
        try await send(.resetEnergyExpended)
    }

    /// Writes a command to the Heart Rate Control Point (0x2A39). The specification defines only
    /// `HeartRateControlPoint/resetEnergyExpended`; sensors refuse others with ATT error 0x80,
    /// reported as ``HeartRateMonitorError/controlPointNotSupported(_:)``.
    public func send(_ command: HeartRateControlPoint) async throws(HeartRateMonitorError) {
        await connection.declare(Self.services)
        do {
            try await connection.write(command, to: .heartRateControlPoint, timeout: timeout)
        } catch let BluetoothError.attribute(status, _) where status == ATTErrorCode(HeartRateControlPoint.controlPointNotSupported) {
            throw .controlPointNotSupported(command)
        } catch { throw .from(error, missing: "the Heart Rate Control Point") }
    }

    // MARK: Location and battery

    /// Where the sensor sits on the body (Body Sensor Location, 0x2A38).
    public func bodySensorLocation() async throws(HeartRateMonitorError) -> BodySensorLocation {
        await connection.declare(Self.services)
        do { return try await connection.read(.bodySensorLocation, timeout: timeout) } catch {
            throw .from(error, missing: "Body Sensor Location")
        }
    }

    /// The battery charge in percent, 0…100 (Battery Level, 0x2A19); nil when the sensor reports
    /// its level as not known (0xFF, as straps without a fuel gauge do).
    public func batteryLevel() async throws(HeartRateMonitorError) -> Int? {
        await connection.declare(Self.services)
        do { return try await connection.read(.batteryLevel, timeout: timeout).percent.map(Int.init) } catch {
            throw .from(error, missing: "Battery Level")
        }
    }

    /// Whether the sensor notifies battery level changes (the property is optional).
    public func offersBatteryNotifications() async throws(HeartRateMonitorError) -> Bool {
        await connection.declare(Self.services)
        do {
            let level = try await connection.characteristic(BatteryLevel.uuid, service: ServiceSpec.battery.uuid, timeout: timeout)
            return level.properties.contains(.notify)
        } catch { throw .from(error, missing: "Battery Level") }
    }

    /// Battery level notifications, in percent (nil for a level the sensor does not know). Throws ``HeartRateMonitorError/notSupported(_:)``
    /// when the sensor does not offer them (check ``offersBatteryNotifications()``); end them
    /// with ``stop(_:)-(BatteryLevels)``.
    public func batteryLevels(buffering: UpdateBuffering = .newest(4)) async throws(HeartRateMonitorError) -> BatteryLevels {
        await connection.declare(Self.services)
        do {
            return BatteryLevels(subscription: try await connection.subscribe(.batteryLevel, buffering: buffering, timeout: timeout))
        } catch { throw .from(error, missing: "Battery Level notifications") }
    }

    /// Ends battery level notifications.
    public func stop(_ levels: BatteryLevels) async {
        await connection.unsubscribe(levels.subscription)
    }
}
