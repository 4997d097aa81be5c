import Harald

/// Why a request to a GoPro camera failed, in one typed error.
public enum GoProError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The camera answered with a status other than success: ``GoProStatusCode/error`` (it could
    /// not do it now: busy, wrong mode, not ready) or ``GoProStatusCode/invalidParameter``.
    case rejected(request: String, status: GoProStatusCode)
    /// The answer could not be reassembled (a packet error) or read (a payload that does not
    /// decode). The request is over; the channel takes new requests.
    case malformedResponse(request: String, detail: String)
    /// No complete answer arrived within the timeout.
    case timeout(request: String, after: Duration)
    /// The connection is gone (or went away during the request).
    case disconnected(DisconnectReason)
    /// The calling task was cancelled.
    case cancelled
    /// Another Bluetooth failure: a write refused, a characteristic missing, a radio off.
    case bluetooth(BluetoothError)

    /// The request and what went wrong with it, e.g. `Set Shutter: the camera answered error` or
    /// `readiness (Get Hardware Info): no response within 5.0 seconds`.
    public var description: String {
        switch self {
        case let .rejected(request, status): "\(request): the camera answered \(status)"
        case let .malformedResponse(request, detail): "\(request): malformed response: \(detail)"
        case let .timeout(request, duration): "\(request): no response within \(duration)"
        case let .disconnected(reason): "disconnected: \(reason)"
        case .cancelled: "cancelled"
        case let .bluetooth(error): error.description
        }
    }

    /// The error for a failure of the connection underneath.
    static func from(_ error: any Error) -> GoProError {
        switch error {
        case let error as GoProError: error
        case let BluetoothError.disconnected(reason): .disconnected(reason)
        case BluetoothError.cancelled: .cancelled
        case let error as BluetoothError: .bluetooth(error)
        case is CancellationError: .cancelled
        default: .bluetooth(.backend(String(describing: error)))
        }
    }
}

extension GoProError: DisconnectionReporting {
    /// Why the link went away, when this error is a disconnection (so
    /// `Central.withReconnection` reconnects after it).
    public var disconnectReason: DisconnectReason? {
        if case let .disconnected(reason) = self { return reason }
        return nil
    }
}
