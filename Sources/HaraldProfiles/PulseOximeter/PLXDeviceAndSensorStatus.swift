import HaraldCodec

/// The bits of the PLX Device and Sensor Status field (u24). Bits 16…23 are reserved; `Flags`
/// keeps them as received.
public enum PLXDeviceAndSensorStatus: Int, FlagBit {
    /// Bit 0: the display is being updated for longer than usual.
    case extendedDisplayUpdateOngoing = 0
    /// Bit 1: the equipment malfunctioned.
    case equipmentMalfunctionDetected = 1
    /// Bit 2: signal processing found an irregularity.
    case signalProcessingIrregularityDetected = 2
    /// Bit 3: the signal is inadequate.
    case inadequateSignalDetected = 3
    /// Bit 4: the signal is poor.
    case poorSignalDetected = 4
    /// Bit 5: low perfusion at the sensor site.
    case lowPerfusionDetected = 5
    /// Bit 6: the signal is erratic.
    case erraticSignalDetected = 6
    /// Bit 7: no pulse in the signal.
    case nonpulsatileSignalDetected = 7
    /// Bit 8: the pulse is questionable.
    case questionablePulseDetected = 8
    /// Bit 9: the signal is still being analysed.
    case signalAnalysisOngoing = 9
    /// Bit 10: interference at the sensor.
    case sensorInterferenceDetected = 10
    /// Bit 11: the sensor is not on the user.
    case sensorUnconnectedToUser = 11
    /// Bit 12: an unknown sensor is connected.
    case unknownSensorConnected = 12
    /// Bit 13: the sensor moved out of place.
    case sensorDisplaced = 13
    /// Bit 14: the sensor malfunctions.
    case sensorMalfunctioning = 14
    /// Bit 15: the sensor is disconnected.
    case sensorDisconnected = 15
}
