import HaraldCodec

/// The bits of Glucose Measurement's Sensor Status Annunciation field (u16). Bits 12…15 are
/// reserved; `Flags` keeps them as received.
public enum GlucoseSensorStatus: Int, FlagBit {
    /// Bit 0: the device battery was low at measurement time.
    case deviceBatteryLow = 0
    /// Bit 1: the sensor malfunctioned or faulted.
    case sensorMalfunction = 1
    /// Bit 2: the blood or control sample was too small.
    case sampleSizeInsufficient = 2
    /// Bit 3: the strip was inserted wrongly.
    case stripInsertionError = 3
    /// Bit 4: the strip type is not one the device takes.
    case stripTypeIncorrect = 4
    /// Bit 5: the result is above what the device can measure.
    case resultAboveDeviceRange = 5
    /// Bit 6: the result is below what the device can measure.
    case resultBelowDeviceRange = 6
    /// Bit 7: too hot to measure.
    case sensorTemperatureTooHigh = 7
    /// Bit 8: too cold to measure.
    case sensorTemperatureTooLow = 8
    /// Bit 9: the strip was pulled out too soon.
    case sensorReadInterrupted = 9
    /// Bit 10: a device fault.
    case generalDeviceFault = 10
    /// Bit 11: the device's clock was wrong at measurement time.
    case timeFault = 11
}
