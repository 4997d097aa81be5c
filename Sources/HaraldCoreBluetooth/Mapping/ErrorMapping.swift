import Foundation
import Harald
import HaraldCore

/// Translates CoreBluetooth's errors (`CBError` in `CBErrorDomain`, `CBATTError` in
/// `CBATTErrorDomain`, both bridged to `NSError`) into `BluetoothError` and
/// `DisconnectReason`.
///
/// - `CBATTError` code *n* → `.attribute(ATTErrorCode(rawValue: n), on:)`: CoreBluetooth passes
///   the peer's ATT error code through unchanged, but not the handle; the error names the
///   attribute the failed operation addressed instead.
/// - `CBError` codes: 3 not connected, 6 connection timeout, 7 peripheral disconnected →
///   `.disconnected` (reason as below); 5 operation cancelled → `.disconnected(.localRequest)`;
///   2 invalid handle → `.attribute(.invalidHandle)`; 13 operation not supported →
///   `.notPermitted`; 11 connection limit reached → `.connectionLimitReached`; 14 peer removed
///   pairing information → `.peerRemovedPairingInformation`; 15 encryption timed out →
///   `.encryptionTimedOut`; 10 connection failed, 12 unknown device, 16 too many LE paired
///   devices → `.connectionFailed`; anything else → `.backend` with the code and text. The same
///   codes mean the same errors when a connection attempt fails (`didFailToConnect`).
/// - Disconnect reasons: no error (the app cancelled) → `.localRequest`; 7 → `.remoteRequest`;
///   6 (supervision timeout) and 3 (not connected) → `.connectionLost`; 5 → `.localRequest`; 14
///   → `.peerRemovedPairingInformation`; others → `.other` with the code and text.
public enum CoreBluetoothErrorMapping {
    /// Names of `CBError.Code` values, for messages.
    static let names: [Int: String] = [
        0: "unknown", 1: "invalid parameters", 2: "invalid handle", 3: "not connected", 4: "out of space",
        5: "operation cancelled", 6: "connection timeout", 7: "peripheral disconnected", 8: "UUID not allowed",
        9: "already advertising", 10: "connection failed", 11: "connection limit reached", 12: "unknown device",
        13: "operation not supported", 14: "peer removed pairing information", 15: "encryption timed out",
        16: "too many LE paired devices",
    ]

    /// The `BluetoothError` for a failed operation on `attribute` (nil: an operation on no
    /// single attribute, such as service discovery).
    public static func bluetoothError(_ error: any Error, attribute: AttributeID?, keys: CoreBluetoothKeys) -> BluetoothError {
        if let error = error as? BluetoothError { return error }
        let nsError = error as NSError
        if nsError.domain == keys.attErrorDomain, let code = UInt8(exactly: nsError.code) {
            return .attribute(ATTErrorCode(rawValue: code), on: attribute)
        }
        guard nsError.domain == keys.errorDomain else { return .backend("\(nsError.domain) \(nsError.code): \(nsError.localizedDescription)") }
        switch nsError.code {
        case 3, 6, 7: return .disconnected(disconnectReason(error, keys: keys))
        case 5: return .disconnected(.localRequest)
        case 2: return .attribute(.invalidHandle, on: attribute)
        case 13: return .notPermitted(text(nsError))
        case 10, 12, 16: return .connectionFailed(text(nsError))
        default: return securityOrCapacityError(nsError.code) ?? .backend(text(nsError))
        }
    }

    /// The cases that keep a `CBError` code as data: 11, 14 and 15.
    private static func securityOrCapacityError(_ code: Int) -> BluetoothError? {
        switch code {
        case 11: .connectionLimitReached
        case 14: .peerRemovedPairingInformation
        case 15: .encryptionTimedOut
        default: nil
        }
    }

    /// The `BluetoothError` for a connection attempt that failed (`didFailToConnect`).
    public static func connectionError(_ error: (any Error)?, keys: CoreBluetoothKeys) -> BluetoothError {
        guard let error else { return .connectionFailed("CoreBluetooth gave no reason") }
        let nsError = error as NSError
        if nsError.domain == keys.errorDomain, let specific = securityOrCapacityError(nsError.code) { return specific }
        if nsError.domain == keys.errorDomain || nsError.domain == keys.attErrorDomain {
            return .connectionFailed(text(nsError))
        }
        return .connectionFailed(nsError.localizedDescription)
    }

    /// Why a connection ended, from `didDisconnectPeripheral`'s error.
    public static func disconnectReason(_ error: (any Error)?, keys: CoreBluetoothKeys) -> DisconnectReason {
        guard let error else { return .localRequest }
        let nsError = error as NSError
        guard nsError.domain == keys.errorDomain else { return .other("\(nsError.domain) \(nsError.code)") }
        switch nsError.code {
        case 7: return .remoteRequest
        case 3, 6: return .connectionLost
        case 5: return .localRequest
        case 14: return .peerRemovedPairingInformation
        default: return .other(text(nsError))
        }
    }

    private static func text(_ error: NSError) -> String {
        "CBError \(error.code) (\(names[error.code] ?? "unknown code"))"
    }
}
