import HaraldCodec

/// The error code carried by an ATT Error Response (Core spec Vol 3 Part F §3.4.1.1).
///
/// 0x01–0x13 are defined by ATT; 0x80–0x9F are reserved for the application (a profile or a
/// read/write handler chooses their meaning); 0xE0–0xFF are the common profile and service error
/// codes of the Core Specification Supplement. The type is also the error a server-side read or
/// write handler throws to refuse a request.
public struct ATTErrorCode: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    /// The error code byte of an ATT Error Response.
    public var rawValue: UInt8

    /// The error code with this byte; any value is accepted, assigned or not.
    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An error code from its byte (0x80–0x9F are the application's, 0xE0–0xFF common profile codes).
    @inlinable
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// An application error (0x80–0x9F); nil outside that range.
    public static func application(_ code: UInt8) -> ATTErrorCode? {
        (0x80...0x9F).contains(code) ? ATTErrorCode(code) : nil
    }

    /// 0x01: the handle is not one the server has.
    public static let invalidHandle = ATTErrorCode(0x01)
    /// 0x02: the attribute cannot be read.
    public static let readNotPermitted = ATTErrorCode(0x02)
    /// 0x03: the attribute cannot be written.
    public static let writeNotPermitted = ATTErrorCode(0x03)
    /// 0x04: the request was malformed.
    public static let invalidPDU = ATTErrorCode(0x04)
    /// 0x05: the link must be encrypted with an authenticated (MITM-protected) key first: pair.
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    /// 0x06: the server does not implement this request.
    public static let requestNotSupported = ATTErrorCode(0x06)
    /// 0x07: the offset is past the end of the value.
    public static let invalidOffset = ATTErrorCode(0x07)
    /// 0x08: the application refuses this client.
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    /// 0x09: too many prepared writes are queued.
    public static let prepareQueueFull = ATTErrorCode(0x09)
    /// 0x0A: no attribute in the range (the normal end of a discovery).
    public static let attributeNotFound = ATTErrorCode(0x0A)
    /// 0x0B: the attribute cannot be read or written with Blob or prepared writes.
    public static let attributeNotLong = ATTErrorCode(0x0B)
    /// 0x0C: the link's encryption key is shorter than the attribute needs.
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    /// 0x0D: the value has the wrong length.
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    /// 0x0E: the request failed for a reason the server does not name.
    public static let unlikelyError = ATTErrorCode(0x0E)
    /// 0x0F: the link must be encrypted first: pair or re-encrypt with the bond.
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    /// 0x10: the type is not a grouping type.
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    /// 0x11: the server is out of resources.
    public static let insufficientResources = ATTErrorCode(0x11)
    /// 0x12: the client's view of the database is stale (after Service Changed).
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    /// 0x13: the value is outside what the attribute accepts.
    public static let valueNotAllowed = ATTErrorCode(0x13)
    /// Common profile error: the write was refused for a reason the profile defines.
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    /// Common profile error: the Client Characteristic Configuration descriptor is not set as the
    /// procedure needs.
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    /// Common profile error: a procedure is already running.
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    /// Common profile error: a written value is outside the allowed range.
    public static let outOfRange = ATTErrorCode(0xFF)

    /// True for 0x80–0x9F.
    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    /// True for 0xE0–0xFF.
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }

    /// The specification's name for the code, such as "Insufficient Encryption".
    public var name: String {
        switch rawValue {
        case 0x01: "Invalid Handle"
        case 0x02: "Read Not Permitted"
        case 0x03: "Write Not Permitted"
        case 0x04: "Invalid PDU"
        case 0x05: "Insufficient Authentication"
        case 0x06: "Request Not Supported"
        case 0x07: "Invalid Offset"
        case 0x08: "Insufficient Authorization"
        case 0x09: "Prepare Queue Full"
        case 0x0A: "Attribute Not Found"
        case 0x0B: "Attribute Not Long"
        case 0x0C: "Encryption Key Size Too Short"
        case 0x0D: "Invalid Attribute Value Length"
        case 0x0E: "Unlikely Error"
        case 0x0F: "Insufficient Encryption"
        case 0x10: "Unsupported Group Type"
        case 0x11: "Insufficient Resources"
        case 0x12: "Database Out Of Sync"
        case 0x13: "Value Not Allowed"
        case 0x80...0x9F: "Application Error"
        case 0xFC: "Write Request Rejected"
        case 0xFD: "Client Characteristic Configuration Descriptor Improperly Configured"
        case 0xFE: "Procedure Already In Progress"
        case 0xFF: "Out Of Range"
        case 0xE0...0xFB: "Common Profile Error"
        default: "Reserved"
        }
    }

    /// The specification's name of the code and its byte in hex, e.g.
    /// `Insufficient Authentication (0x05)`; codes without a name of their own print as
    /// `Application Error`, `Common Profile Error` or `Reserved`.
    public var description: String { "\(name) (0x\(Hex.byte(rawValue)))" }
}
