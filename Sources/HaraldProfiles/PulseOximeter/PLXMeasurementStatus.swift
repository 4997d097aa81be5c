import HaraldCodec

/// The bits of the PLX Measurement Status field (u16), shared by Spot-check and Continuous
/// measurements. Bits 0…4 are reserved; `Flags` keeps them as received.
public enum PLXMeasurementStatus: Int, FlagBit {
    case measurementOngoing = 5
    case earlyEstimatedData = 6
    case validatedData = 7
    case fullyQualifiedData = 8
    case dataFromMeasurementStorage = 9
    case dataForDemonstration = 10
    case dataForTesting = 11
    case calibrationOngoing = 12
    case measurementUnavailable = 13
    case questionableMeasurementDetected = 14
    case invalidMeasurementDetected = 15
}
