import HaraldCodec

/// The bits of the PLX Measurement Status field (u16), shared by Spot-check and Continuous
/// measurements. Bits 0…4 are reserved; `Flags` keeps them as received.
public enum PLXMeasurementStatus: Int, FlagBit {
    /// Bit 5: a measurement is in progress.
    case measurementOngoing = 5
    /// Bit 6: early, estimated data.
    case earlyEstimatedData = 6
    /// Bit 7: data validated by the device.
    case validatedData = 7
    /// Bit 8: fully qualified data.
    case fullyQualifiedData = 8
    /// Bit 9: stored data, not live.
    case dataFromMeasurementStorage = 9
    /// Bit 10: demonstration data.
    case dataForDemonstration = 10
    /// Bit 11: test data.
    case dataForTesting = 11
    /// Bit 12: the device is calibrating.
    case calibrationOngoing = 12
    /// Bit 13: no measurement available.
    case measurementUnavailable = 13
    /// Bit 14: the measurement is questionable.
    case questionableMeasurementDetected = 14
    /// Bit 15: the measurement is invalid.
    case invalidMeasurementDetected = 15
}
