// CoreBluetooth's two error domains.

/// The domain of CoreBluetooth's own errors (`CBError`).
public let CBErrorDomain: String = "CBErrorDomain"

/// An error of CoreBluetooth itself.
/// Apple's import makes this a bridged NSError type; here it is a plain struct with the same
/// public members.
public struct CBError: CustomNSError, Hashable, @unchecked Sendable {
    /// The codes of the `CBErrorDomain` domain.
    public enum Code: Int, Sendable {
        /// An error of no other kind.
        case unknown = 0
        /// The parameters were invalid.
        case invalidParameters = 1
        /// The attribute handle was invalid.
        case invalidHandle = 2
        /// The device is not connected.
        case notConnected = 3
        /// The device has run out of space.
        case outOfSpace = 4
        /// The operation was cancelled.
        case operationCancelled = 5
        /// The link timed out (supervision timeout).
        case connectionTimeout = 6
        /// The peripheral disconnected.
        case peripheralDisconnected = 7
        /// The UUID is reserved and cannot be used.
        case uuidNotAllowed = 8
        /// The peripheral manager is already advertising.
        case alreadyAdvertising = 9
        /// The connection could not be made.
        case connectionFailed = 10
        /// The device already has as many connections as it can.
        case connectionLimitReached = 11
        /// The device is unknown (Apple also spells this raw value `unkownDevice`, deprecated).
        case unknownDevice = 12
        /// The operation is not supported.
        case operationNotSupported = 13
        /// The peer forgot the bond: the pairing keys no longer match.
        case peerRemovedPairingInformation = 14
        /// Encrypting the link timed out.
        case encryptionTimedOut = 15
        /// No more LE devices can be paired.
        case tooManyLEPairedDevices = 16
    }

    /// The error's code.
    public let code: Code
    /// More about the error.
    public let userInfo: [String: Any]

    /// An error with this code.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// The domain, `CBErrorDomain`.
    public static var errorDomain: String { CBErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// Same as `userInfo`.
    public var errorUserInfo: [String: Any] { userInfo }

    /// Errors are equal when their codes are.
    public static func == (lhs: CBError, rhs: CBError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `Code.unknown`, for `catch` patterns.
    public static var unknown: Code { .unknown }
    /// `Code.invalidParameters`, for `catch` patterns.
    public static var invalidParameters: Code { .invalidParameters }
    /// `Code.invalidHandle`, for `catch` patterns.
    public static var invalidHandle: Code { .invalidHandle }
    /// `Code.notConnected`, for `catch` patterns.
    public static var notConnected: Code { .notConnected }
    /// `Code.outOfSpace`, for `catch` patterns.
    public static var outOfSpace: Code { .outOfSpace }
    /// `Code.operationCancelled`, for `catch` patterns.
    public static var operationCancelled: Code { .operationCancelled }
    /// `Code.connectionTimeout`, for `catch` patterns.
    public static var connectionTimeout: Code { .connectionTimeout }
    /// `Code.peripheralDisconnected`, for `catch` patterns.
    public static var peripheralDisconnected: Code { .peripheralDisconnected }
    /// `Code.uuidNotAllowed`, for `catch` patterns.
    public static var uuidNotAllowed: Code { .uuidNotAllowed }
    /// `Code.alreadyAdvertising`, for `catch` patterns.
    public static var alreadyAdvertising: Code { .alreadyAdvertising }
    /// `Code.connectionFailed`, for `catch` patterns.
    public static var connectionFailed: Code { .connectionFailed }
    /// `Code.connectionLimitReached`, for `catch` patterns.
    public static var connectionLimitReached: Code { .connectionLimitReached }
    /// `Code.unknownDevice`, for `catch` patterns.
    public static var unknownDevice: Code { .unknownDevice }
    /// `Code.operationNotSupported`, for `catch` patterns.
    public static var operationNotSupported: Code { .operationNotSupported }
    /// `Code.peerRemovedPairingInformation`, for `catch` patterns.
    public static var peerRemovedPairingInformation: Code { .peerRemovedPairingInformation }
    /// `Code.encryptionTimedOut`, for `catch` patterns.
    public static var encryptionTimedOut: Code { .encryptionTimedOut }
    /// `Code.tooManyLEPairedDevices`, for `catch` patterns.
    public static var tooManyLEPairedDevices: Code { .tooManyLEPairedDevices }
    /// `Code.unknownDevice` under Apple's misspelt original name.
    @available(*, deprecated, renamed: "unknownDevice")
    public static var unkownDevice: Code { .unknownDevice }
}

extension CBError.Code {
    /// Whether `error` is a `CBError` with this code (`catch CBError.someCode`).
    public static func ~= (code: CBError.Code, error: any Error) -> Bool {
        (error as? CBError)?.code == code
    }
}

/// The domain of ATT errors (`CBATTError`).
public let CBATTErrorDomain: String = "CBATTErrorDomain"

/// An ATT error a peer answered with, or one the app answers a request with.
/// Apple's import makes this a bridged NSError type; here it is a plain struct with the same
/// public members.
public struct CBATTError: CustomNSError, Hashable, @unchecked Sendable {
    /// The codes of the `CBATTErrorDomain` domain.
    public enum Code: Int, Sendable {
        /// The request succeeded.
        case success = 0
        /// Invalid Handle.
        case invalidHandle = 1
        /// Read Not Permitted.
        case readNotPermitted = 2
        /// Write Not Permitted.
        case writeNotPermitted = 3
        /// Invalid PDU.
        case invalidPdu = 4
        /// Insufficient Authentication: the link needs an authenticated (MITM-protected) pairing.
        case insufficientAuthentication = 5
        /// Request Not Supported.
        case requestNotSupported = 6
        /// Invalid Offset.
        case invalidOffset = 7
        /// Insufficient Authorization.
        case insufficientAuthorization = 8
        /// Prepare Queue Full.
        case prepareQueueFull = 9
        /// Attribute Not Found.
        case attributeNotFound = 10
        /// Attribute Not Long: a blob read of a value that fits one read.
        case attributeNotLong = 11
        /// Insufficient Encryption Key Size.
        case insufficientEncryptionKeySize = 12
        /// Invalid Attribute Value Length.
        case invalidAttributeValueLength = 13
        /// Unlikely Error.
        case unlikelyError = 14
        /// Insufficient Encryption: the link must be encrypted.
        case insufficientEncryption = 15
        /// Unsupported Group Type.
        case unsupportedGroupType = 16
        /// Insufficient Resources.
        case insufficientResources = 17
    }

    /// The error's code.
    public let code: Code
    /// More about the error.
    public let userInfo: [String: Any]

    /// An error with this code.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    /// The domain, `CBATTErrorDomain`.
    public static var errorDomain: String { CBATTErrorDomain }
    /// The code's raw value.
    public var errorCode: Int { code.rawValue }
    /// Same as `userInfo`.
    public var errorUserInfo: [String: Any] { userInfo }

    /// Errors are equal when their codes are.
    public static func == (lhs: CBATTError, rhs: CBATTError) -> Bool { lhs.code == rhs.code }
    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `Code.success`, for `catch` patterns.
    public static var success: Code { .success }
    /// `Code.invalidHandle`, for `catch` patterns.
    public static var invalidHandle: Code { .invalidHandle }
    /// `Code.readNotPermitted`, for `catch` patterns.
    public static var readNotPermitted: Code { .readNotPermitted }
    /// `Code.writeNotPermitted`, for `catch` patterns.
    public static var writeNotPermitted: Code { .writeNotPermitted }
    /// `Code.invalidPdu`, for `catch` patterns.
    public static var invalidPdu: Code { .invalidPdu }
    /// `Code.insufficientAuthentication`, for `catch` patterns.
    public static var insufficientAuthentication: Code { .insufficientAuthentication }
    /// `Code.requestNotSupported`, for `catch` patterns.
    public static var requestNotSupported: Code { .requestNotSupported }
    /// `Code.invalidOffset`, for `catch` patterns.
    public static var invalidOffset: Code { .invalidOffset }
    /// `Code.insufficientAuthorization`, for `catch` patterns.
    public static var insufficientAuthorization: Code { .insufficientAuthorization }
    /// `Code.prepareQueueFull`, for `catch` patterns.
    public static var prepareQueueFull: Code { .prepareQueueFull }
    /// `Code.attributeNotFound`, for `catch` patterns.
    public static var attributeNotFound: Code { .attributeNotFound }
    /// `Code.attributeNotLong`, for `catch` patterns.
    public static var attributeNotLong: Code { .attributeNotLong }
    /// `Code.insufficientEncryptionKeySize`, for `catch` patterns.
    public static var insufficientEncryptionKeySize: Code { .insufficientEncryptionKeySize }
    /// `Code.invalidAttributeValueLength`, for `catch` patterns.
    public static var invalidAttributeValueLength: Code { .invalidAttributeValueLength }
    /// `Code.unlikelyError`, for `catch` patterns.
    public static var unlikelyError: Code { .unlikelyError }
    /// `Code.insufficientEncryption`, for `catch` patterns.
    public static var insufficientEncryption: Code { .insufficientEncryption }
    /// `Code.unsupportedGroupType`, for `catch` patterns.
    public static var unsupportedGroupType: Code { .unsupportedGroupType }
    /// `Code.insufficientResources`, for `catch` patterns.
    public static var insufficientResources: Code { .insufficientResources }
}

extension CBATTError.Code {
    /// Whether `error` is a `CBATTError` with this code (`catch CBATTError.someCode`).
    public static func ~= (code: CBATTError.Code, error: any Error) -> Bool {
        (error as? CBATTError)?.code == code
    }
}
