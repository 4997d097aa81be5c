import Harald
import HaraldCodec
import HaraldProfiles

/// Why a heart-rate monitor operation failed, in one typed error.
public enum HeartRateMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The sensor lacks what the operation needs: a characteristic (a strap without the Heart
    /// Rate Control Point, without a Battery service), or notifications on it.
    case notSupported(String)
    /// The sensor refused the Heart Rate Control Point command with ATT error 0x80 (Control
    /// Point Not Supported): it does not measure energy expended, or does not know the op code.
    case controlPointNotSupported(HeartRateControlPoint)
    /// The operation did not finish in time; for a measurement stream, no measurement arrived
    /// within its stall timeout.
    case timeout(operation: String, after: Duration)
    /// The link to the sensor is gone.
    case disconnected(DisconnectReason)
    /// A value from the sensor did not decode (a malformed measurement, an out-of-range battery
    /// level).
    case malformedValue(ByteDecodingError)
    /// Pairing did not complete (see `PairingFlow/Failure`).
    case pairing(PairingFlow.Failure)
    /// The task was cancelled.
    case cancelled
    /// Any other Bluetooth failure (an unexpected ATT error, a protocol violation, …).
    case bluetooth(BluetoothError)

    /// The failure in words, e.g. `the sensor does not support the Heart Rate Control Point`,
    /// `waiting for a heart rate measurement timed out after 5.0 seconds` or
    /// `disconnected: connection lost`.
    public var description: String {
        switch self {
        case let .notSupported(what): "the sensor does not support \(what)"
        case let .controlPointNotSupported(command):
            "the sensor refused control point command 0x\(String(command.code, radix: 16, uppercase: true)) (Control Point Not Supported)"
        case let .timeout(operation, duration): "\(operation) timed out after \(duration)"
        case let .disconnected(reason): "disconnected: \(reason)"
        case let .malformedValue(error): "malformed value: \(error)"
        case let .pairing(failure): failure.description
        case .cancelled: "cancelled"
        case let .bluetooth(error): error.description
        }
    }

    /// The kit's error for any failure of the public API below it.
    static func from(_ error: any Error, missing: String? = nil) -> HeartRateMonitorError {
        if let error = error as? HeartRateMonitorError { return error }
        if error is CancellationError || (error as? BluetoothError) == .cancelled { return .cancelled }
        if let failure = error as? PairingFlow.Failure { return .pairing(failure) }
        guard let error = error as? BluetoothError else { return .bluetooth(.backend(String(describing: error))) }
        switch error {
        case let .notFound(what): return .notSupported(missing ?? what)
        case let .notPermitted(what): return .notSupported(missing ?? what)
        case let .timeout(operation, duration): return .timeout(operation: operation, after: duration)
        case let .disconnected(reason): return .disconnected(reason)
        case let .decoding(failure): return .malformedValue(failure)
        default: return .bluetooth(error)
        }
    }
}

extension HeartRateMonitorError: DisconnectionReporting {
    /// Why the link went away, when this error is a disconnection (so
    /// `Central.withReconnection` reconnects after it).
    public var disconnectReason: DisconnectReason? {
        if case let .disconnected(reason) = self { return reason }
        return nil
    }
}
