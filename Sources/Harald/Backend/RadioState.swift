/// The state of the local Bluetooth radio, as CoreBluetooth and HCI controllers report it.
public enum RadioState: Hashable, Sendable, CustomStringConvertible {
    /// Not known yet (right after start-up).
    case unknown
    /// The radio is restarting.
    case resetting
    /// This device has no Bluetooth LE.
    case unsupported
    /// The app may not use Bluetooth.
    case unauthorized
    /// Bluetooth is switched off.
    case poweredOff
    /// Ready for use.
    case poweredOn

    /// The state in words: `unknown`, `resetting`, `unsupported`, `unauthorized`, `powered off` or
    /// `powered on`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .resetting: "resetting"
        case .unsupported: "unsupported"
        case .unauthorized: "unauthorized"
        case .poweredOff: "powered off"
        case .poweredOn: "powered on"
        }
    }
}
