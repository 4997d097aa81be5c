import HaraldCodec
import HaraldProfiles

// The standard SIG services and characteristics, typed with HaraldProfiles values and the
// operations the specifications allow. Optional operations a device may lack (Battery Level
// notifications, say) are in the type; a device without them answers with `notPermitted`.

extension ServiceSpec {
    /// Heart Rate (0x180D).
    public static let heartRate = ServiceSpec(0x180D, characteristics: [0x2A37, 0x2A38, 0x2A39])
    /// Battery (0x180F).
    public static let battery = ServiceSpec(0x180F, characteristics: [0x2A19])
    /// Device Information (0x180A).
    public static let deviceInformation = ServiceSpec(
        0x180A, characteristics: [0x2A29, 0x2A24, 0x2A25, 0x2A27, 0x2A26, 0x2A28, 0x2A23, 0x2A50])
    /// Health Thermometer (0x1809).
    public static let healthThermometer = ServiceSpec(0x1809, characteristics: [0x2A1C, 0x2A1D])
    /// Blood Pressure (0x1810).
    public static let bloodPressure = ServiceSpec(0x1810, characteristics: [0x2A35, 0x2A36])
    /// Glucose (0x1808).
    public static let glucose = ServiceSpec(0x1808, characteristics: [0x2A18])
    /// Weight Scale (0x181D).
    public static let weightScale = ServiceSpec(0x181D, characteristics: [0x2A9D, 0x2A9E])
    /// Cycling Speed and Cadence (0x1816).
    public static let cyclingSpeedAndCadence = ServiceSpec(0x1816, characteristics: [0x2A5B])
    /// Running Speed and Cadence (0x1814).
    public static let runningSpeedAndCadence = ServiceSpec(0x1814, characteristics: [0x2A53])
    /// Pulse Oximeter (0x1822).
    public static let pulseOximeter = ServiceSpec(0x1822, characteristics: [0x2A5E, 0x2A5F, 0x2A60])
    /// Current Time (0x1805).
    public static let currentTime = ServiceSpec(0x1805, characteristics: [0x2A2B, 0x2A0F])
    /// Generic Access (0x1800).
    ///
    /// Not reachable on CoreBluetooth: the system keeps this service to itself and never shows
    /// it to apps, so a call that needs it fails with ``BluetoothError/unsupported(_:)`` before
    /// anything is sent. The device's name is in its advertisement (``Advertisement/localName``).
    public static let genericAccess = ServiceSpec(0x1800, characteristics: [0x2A00, 0x2A01])
    /// Generic Attribute (0x1801).
    ///
    /// Not reachable on CoreBluetooth: the system keeps this service to itself (it subscribes to
    /// Service Changed on its own), so a call that needs it fails with
    /// ``BluetoothError/unsupported(_:)`` before anything is sent; changes reach
    /// ``PeripheralConnection/serviceChanges()`` on every backend.
    public static let genericAttribute = ServiceSpec(0x1801, characteristics: [0x2A05])
}

extension ServiceSpec {
    /// A spec from 16-bit SIG numbers.
    init(_ uuid: UInt16, characteristics: [UInt16]) {
        self.init(BluetoothUUID(uuid), characteristics: characteristics.map { BluetoothUUID($0) })
    }
}

extension Characteristic {
    /// A characteristic of a standard value type in a 16-bit SIG service.
    init(_ value: Value.Type, service: UInt16) where Value: CharacteristicValue {
        self.init(Value.uuid, service: BluetoothUUID(service))
    }
}

// MARK: Heart Rate

extension Characteristic where Value == HeartRateMeasurement, Access == Notify {
    /// Heart Rate Measurement (0x2A37): notified about once a second.
    public static var heartRateMeasurement: Self { .init(HeartRateMeasurement.self, service: 0x180D) }
}

extension Characteristic where Value == BodySensorLocation, Access == Read {
    /// Body Sensor Location (0x2A38).
    public static var bodySensorLocation: Self { .init(BodySensorLocation.self, service: 0x180D) }
}

extension Characteristic where Value == HeartRateControlPoint, Access == Write {
    /// Heart Rate Control Point (0x2A39): write-only; resets energy expended.
    public static var heartRateControlPoint: Self { .init(HeartRateControlPoint.self, service: 0x180D) }
}

// MARK: Battery

extension Characteristic where Value == BatteryLevel, Access == ReadNotify {
    /// Battery Level (0x2A19), percent.
    public static var batteryLevel: Self { .init(BatteryLevel.self, service: 0x180F) }
}

// MARK: Device Information

extension Characteristic where Value == ManufacturerNameString, Access == Read {
    /// Manufacturer Name String (0x2A29).
    public static var manufacturerName: Self { .init(ManufacturerNameString.self, service: 0x180A) }
}

extension Characteristic where Value == ModelNumberString, Access == Read {
    /// Model Number String (0x2A24).
    public static var modelNumber: Self { .init(ModelNumberString.self, service: 0x180A) }
}

extension Characteristic where Value == SerialNumberString, Access == Read {
    /// Serial Number String (0x2A25).
    public static var serialNumber: Self { .init(SerialNumberString.self, service: 0x180A) }
}

extension Characteristic where Value == HardwareRevisionString, Access == Read {
    /// Hardware Revision String (0x2A27).
    public static var hardwareRevision: Self { .init(HardwareRevisionString.self, service: 0x180A) }
}

extension Characteristic where Value == FirmwareRevisionString, Access == Read {
    /// Firmware Revision String (0x2A26).
    public static var firmwareRevision: Self { .init(FirmwareRevisionString.self, service: 0x180A) }
}

extension Characteristic where Value == SoftwareRevisionString, Access == Read {
    /// Software Revision String (0x2A28).
    public static var softwareRevision: Self { .init(SoftwareRevisionString.self, service: 0x180A) }
}

extension Characteristic where Value == SystemID, Access == Read {
    /// System ID (0x2A23).
    public static var systemID: Self { .init(SystemID.self, service: 0x180A) }
}

extension Characteristic where Value == PnPID, Access == Read {
    /// PnP ID (0x2A50).
    public static var pnpID: Self { .init(PnPID.self, service: 0x180A) }
}

// MARK: Health, fitness and time

extension Characteristic where Value == TemperatureMeasurement, Access == Indicate {
    /// Temperature Measurement (0x2A1C).
    public static var temperatureMeasurement: Self { .init(TemperatureMeasurement.self, service: 0x1809) }
}

extension Characteristic where Value == TemperatureType, Access == Read {
    /// Temperature Type (0x2A1D).
    public static var temperatureType: Self { .init(TemperatureType.self, service: 0x1809) }
}

extension Characteristic where Value == BloodPressureMeasurement, Access == Indicate {
    /// Blood Pressure Measurement (0x2A35).
    public static var bloodPressureMeasurement: Self { .init(BloodPressureMeasurement.self, service: 0x1810) }
}

extension Characteristic where Value == IntermediateCuffPressure, Access == Notify {
    /// Intermediate Cuff Pressure (0x2A36).
    public static var intermediateCuffPressure: Self { .init(IntermediateCuffPressure.self, service: 0x1810) }
}

extension Characteristic where Value == GlucoseMeasurement, Access == Notify {
    /// Glucose Measurement (0x2A18).
    public static var glucoseMeasurement: Self { .init(GlucoseMeasurement.self, service: 0x1808) }
}

extension Characteristic where Value == WeightMeasurement, Access == Indicate {
    /// Weight Measurement (0x2A9D).
    public static var weightMeasurement: Self { .init(WeightMeasurement.self, service: 0x181D) }
}

extension Characteristic where Value == WeightScaleFeature, Access == Read {
    /// Weight Scale Feature (0x2A9E).
    public static var weightScaleFeature: Self { .init(WeightScaleFeature.self, service: 0x181D) }
}

extension Characteristic where Value == CSCMeasurement, Access == Notify {
    /// CSC Measurement (0x2A5B).
    public static var cscMeasurement: Self { .init(CSCMeasurement.self, service: 0x1816) }
}

extension Characteristic where Value == RSCMeasurement, Access == Notify {
    /// RSC Measurement (0x2A53).
    public static var rscMeasurement: Self { .init(RSCMeasurement.self, service: 0x1814) }
}

extension Characteristic where Value == PLXSpotCheckMeasurement, Access == Indicate {
    /// PLX Spot-check Measurement (0x2A5E).
    public static var plxSpotCheckMeasurement: Self { .init(PLXSpotCheckMeasurement.self, service: 0x1822) }
}

extension Characteristic where Value == PLXContinuousMeasurement, Access == Notify {
    /// PLX Continuous Measurement (0x2A5F).
    public static var plxContinuousMeasurement: Self { .init(PLXContinuousMeasurement.self, service: 0x1822) }
}

extension Characteristic where Value == PLXFeatures, Access == Read {
    /// PLX Features (0x2A60).
    public static var plxFeatures: Self { .init(PLXFeatures.self, service: 0x1822) }
}

extension Characteristic where Value == CurrentTime, Access == ReadNotify {
    /// Current Time (0x2A2B).
    public static var currentTime: Self { .init(CurrentTime.self, service: 0x1805) }
}

extension Characteristic where Value == LocalTimeInformation, Access == Read {
    /// Local Time Information (0x2A0F).
    public static var localTimeInformation: Self { .init(LocalTimeInformation.self, service: 0x1805) }
}

extension Characteristic where Value == DeviceName, Access == Read {
    /// Device Name (0x2A00).
    ///
    /// Not readable on CoreBluetooth: the system keeps the Generic Access service, so the read
    /// fails with ``BluetoothError/unsupported(_:)`` before anything is sent. The name is in the
    /// device's advertisement (``Advertisement/localName``).
    public static var deviceName: Self { .init(DeviceName.self, service: 0x1800) }
}

extension Characteristic where Value == Appearance, Access == Read {
    /// Appearance (0x2A01).
    ///
    /// Not readable on CoreBluetooth: the system keeps the Generic Access service, so the read
    /// fails with ``BluetoothError/unsupported(_:)`` before anything is sent. A device may
    /// advertise its appearance (AD type 0x19).
    public static var appearance: Self { .init(Appearance.self, service: 0x1800) }
}

extension Characteristic where Value == ServiceChanged, Access == Indicate {
    /// Service Changed (0x2A05).
    ///
    /// Not reachable on CoreBluetooth: the system keeps the Generic Attribute service and
    /// subscribes to this characteristic itself, so subscribing fails with
    /// ``BluetoothError/unsupported(_:)`` before anything is sent. Every backend reports the
    /// changes through ``PeripheralConnection/serviceChanges()``.
    public static var serviceChanged: Self { .init(ServiceChanged.self, service: 0x1801) }
}
