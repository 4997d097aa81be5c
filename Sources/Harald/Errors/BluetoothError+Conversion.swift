import HaraldCodec

extension BluetoothError {
    /// Any error as a ``BluetoothError``: itself when it is one, ``cancelled`` for task
    /// cancellation, ``decoding(_:)``/``encoding(_:)`` for codec errors, and ``backend(_:)`` with
    /// the error's description for anything else a backend let through.
    public init(_ error: any Error) {
        switch error {
        case let error as BluetoothError: self = error
        case is CancellationError: self = .cancelled
        case let error as ByteDecodingError: self = .decoding(error)
        case let error as ByteEncodingError: self = .encoding(error)
        default: self = .backend(String(describing: error))
        }
    }
}

/// Runs `body` on the caller's actor and rethrows whatever it throws as a ``BluetoothError``
/// (see ``BluetoothError/init(_:)``): how the public API and backends give their callers the one
/// error type when the code underneath throws others.
public func withBluetoothErrors<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async throws(BluetoothError) -> T {
    do { return try await body() } catch { throw BluetoothError(error) }
}
