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

/// Telling a cancelled task from a failure, whatever threw.
extension Error {
    /// True when this error reports that the task doing the work was cancelled: a
    /// `CancellationError`, or `BluetoothError.cancelled`, which every typed-throwing Harald call
    /// throws in its place (a `throws(BluetoothError)` call cannot throw a `CancellationError`,
    /// so `catch is CancellationError` never matches one). One test for both, where the errors of
    /// Harald and of other code meet:
    ///
    /// ```swift
    /// do {
    ///     try await Task.sleep(for: .seconds(1))
    ///     let level = try await connection.read(.batteryLevel)
    /// } catch where error.isCancellation {
    ///     return  // the view went away: not a failure to show
    /// } catch {
    ///     show(error)
    /// }
    /// ```
    public var isCancellation: Bool {
        switch self {
        case is CancellationError: true
        case let error as BluetoothError: error == .cancelled
        default: false
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
