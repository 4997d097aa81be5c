import HaraldCodec

/// The bits of the PLX Device and Sensor Status field (u24). Bits 16…23 are reserved; `Flags`
/// keeps them as received.
public enum PLXDeviceAndSensorStatus: Int, FlagBit {
    case extendedDisplayUpdateOngoing = 0
    case equipmentMalfunctionDetected = 1
    case signalProcessingIrregularityDetected = 2
    case inadequateSignalDetected = 3
    case poorSignalDetected = 4
    case lowPerfusionDetected = 5
    case erraticSignalDetected = 6
    case nonpulsatileSignalDetected = 7
    case questionablePulseDetected = 8
    case signalAnalysisOngoing = 9
    case sensorInterferenceDetected = 10
    case sensorUnconnectedToUser = 11
    case unknownSensorConnected = 12
    case sensorDisplaced = 13
    case sensorMalfunctioning = 14
    case sensorDisconnected = 15
}
