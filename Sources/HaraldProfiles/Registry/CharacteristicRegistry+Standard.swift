import HaraldCodec
import HaraldCore

extension CharacteristicRegistry {
    /// Every characteristic and descriptor type this module defines, in registration order.
    /// A fuzzer or a round-trip test can walk this list (or ``standard``'s entries).
    public static let standardTypes: [any CharacteristicValue.Type] = [
        BatteryLevel.self,
        HeartRateMeasurement.self, BodySensorLocation.self, HeartRateControlPoint.self,
        TemperatureMeasurement.self, IntermediateTemperature.self, TemperatureType.self,
        BloodPressureMeasurement.self, IntermediateCuffPressure.self,
        GlucoseMeasurement.self,
        WeightMeasurement.self, WeightScaleFeature.self,
        CSCMeasurement.self, RSCMeasurement.self,
        PLXSpotCheckMeasurement.self, PLXContinuousMeasurement.self, PLXFeatures.self,
        DateTime.self, DayOfWeek.self, CurrentTime.self, DSTOffset.self, TimeZoneOffset.self, LocalTimeInformation.self,
        ManufacturerNameString.self, ModelNumberString.self, SerialNumberString.self, HardwareRevisionString.self,
        FirmwareRevisionString.self, SoftwareRevisionString.self, SystemID.self, PnPID.self,
        DeviceName.self, Appearance.self,
        ClientCharacteristicConfiguration.self, CharacteristicPresentationFormat.self, ServiceChanged.self,
    ]

    /// A registry with every type in ``standardTypes``.
    public static let standard: CharacteristicRegistry = {
        var registry = CharacteristicRegistry()
        for type in standardTypes { registry.register(type) }
        return registry
    }()
}
