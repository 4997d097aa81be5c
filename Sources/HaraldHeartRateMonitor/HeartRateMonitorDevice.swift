import Harald
import HaraldCodec
import HaraldCore
import HaraldProfiles

/// Being a heart-rate monitor: the device definition (Heart Rate 0x180D, Battery 0x180F, Device
/// Information 0x180A) and its live sensor, for any `PeripheralBackend` — the simulator, Harald's
/// HCI host (`harald serve hrm`), CoreBluetooth.
///
/// The sensor is deterministic: the heart rate follows a fixed 20-step walk between 62 and
/// 100 bpm, each measurement carries sensor contact, the energy expended since the last reset
/// (1 kJ more per measurement) and one RR interval that matches the rate. Writing 0x01 (Reset
/// Energy Expended) to the Heart Rate Control Point resets it; any other op code is refused with
/// the profile's error 0x80, Control Point Not Supported.
public final class HeartRateMonitorDevice: Sendable {
    /// What the device serves and advertises.
    public let definition: PeripheralDefinition
    private let sensor = Locked((tick: 0, energy: UInt16(0)))
    private static let walk: [UInt16] = [72, 74, 77, 80, 84, 88, 91, 95, 98, 100, 97, 93, 89, 85, 81, 78, 75, 71, 66, 62]

    /// - Parameters:
    ///   - name: the Complete Local Name it advertises.
    ///   - location: Body Sensor Location (0x2A38).
    ///   - battery: Battery Level (0x2A19), percent.
    ///   - serialNumber: Serial Number String (0x2A25) of its Device Information service.
    ///   - serialNumberSecurity: what reading the Serial Number String needs (a device that keeps
    ///     its identity until bonded uses `.encrypted`).
    public init(
        name: String = "Harald HRM", location: BodySensorLocation = .chest, battery: UInt8 = 87, serialNumber: String = "HRM-000042",
        serialNumberSecurity: AttributeSecurity = .none
    ) throws(ByteEncodingError) {
        let sensor = self.sensor
        definition = try PeripheralDefinition(
            advertisement: PeripheralAdvertisement(name: name, services: [BluetoothUUID(0x180D), BluetoothUUID(0x180F)], appearance: 0x0341)
        ) { () throws(ByteEncodingError) -> [ServiceDefinition] in
            try ServiceDefinition(BluetoothUUID(0x180D)) { () throws(ByteEncodingError) -> [CharacteristicDefinition] in
                CharacteristicDefinition(.heartRateMeasurement)
                try CharacteristicDefinition(.bodySensorLocation, value: location)
                CharacteristicDefinition(.heartRateControlPoint) { command, _ throws(ATTErrorCode) in
                    guard command == .resetEnergyExpended else { throw ATTErrorCode(HeartRateControlPoint.controlPointNotSupported) }
                    sensor.withLock { $0.energy = 0 }
                }
            }
            try ServiceDefinition(BluetoothUUID(0x180F)) { () throws(ByteEncodingError) -> [CharacteristicDefinition] in
                try CharacteristicDefinition(.batteryLevel, value: BatteryLevel(percent: min(battery, 100)))
            }
            try ServiceDefinition(BluetoothUUID(0x180A)) { () throws(ByteEncodingError) -> [CharacteristicDefinition] in
                try CharacteristicDefinition(.manufacturerName, value: ManufacturerNameString(text: "Harald Labs"))
                try CharacteristicDefinition(.modelNumber, value: ModelNumberString(text: "HRM-1"))
                try CharacteristicDefinition(.serialNumber, value: SerialNumberString(text: serialNumber), security: serialNumberSecurity)
                try CharacteristicDefinition(.firmwareRevision, value: FirmwareRevisionString(text: "1.0.0"))
            }
        }
    }

    /// The next measurement of the sensor.
    public func nextMeasurement() -> HeartRateMeasurement {
        let (rate, energy) = sensor.withLock { sensor -> (UInt16, UInt16) in
            let rate = Self.walk[sensor.tick % Self.walk.count]
            sensor.tick += 1
            sensor.energy = sensor.energy == .max ? .max : sensor.energy + 1
            return (rate, sensor.energy)
        }
        return HeartRateMeasurement(
            heartRate: rate, sensorContact: .detected, energyExpended: energy, rrIntervals: RRIntervals([UInt16(60 * 1024 / Int(rate))]))
    }

    /// Notifies a measurement to every subscribed central every `interval`, until the calling
    /// task is cancelled or `served` stops; `onMeasurement` sees each one and how many centrals
    /// got it.
    public func run(
        _ served: ServedPeripheral, every interval: Duration = .seconds(1), clock: any Clock<Duration> = ContinuousClock(),
        onMeasurement: @Sendable (HeartRateMeasurement, Int) -> Void = { _, _ in }
    ) async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            let measurement = nextMeasurement()
            do {
                let sent = try await served.notify(.heartRateMeasurement, measurement)
                onMeasurement(measurement, sent)
            } catch {
                return
            }
        }
    }
}
