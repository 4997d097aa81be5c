/// The unit of blood-pressure values (flag bit 0 of Blood Pressure Measurement and Intermediate
/// Cuff Pressure).
public enum BloodPressureUnit: Hashable, Sendable {
    /// Millimetres of mercury.
    case mmHg
    /// Kilopascals.
    case kPa
}
