import HaraldCodec

/// The bits of Glucose Measurement's Sensor Status Annunciation field (u16). Bits 12…15 are
/// reserved; `Flags` keeps them as received.
public enum GlucoseSensorStatus: Int, FlagBit {
    case deviceBatteryLow = 0
    case sensorMalfunction = 1
    case sampleSizeInsufficient = 2
    case stripInsertionError = 3
    case stripTypeIncorrect = 4
    case resultAboveDeviceRange = 5
    case resultBelowDeviceRange = 6
    case sensorTemperatureTooHigh = 7
    case sensorTemperatureTooLow = 8
    case sensorReadInterrupted = 9
    case generalDeviceFault = 10
    case timeFault = 11
}
