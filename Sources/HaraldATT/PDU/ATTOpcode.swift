import HaraldCodec
/// The first byte of every ATT PDU (Core spec Vol 3 Part F §3.3): six bits of method, bit 6 the
/// Command flag, bit 7 the Authentication Signature flag.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt8

    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    @inlinable
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = ATTOpcode(0x01)
    public static let exchangeMTURequest = ATTOpcode(0x02)
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    public static let findInformationRequest = ATTOpcode(0x04)
    public static let findInformationResponse = ATTOpcode(0x05)
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    public static let readByTypeRequest = ATTOpcode(0x08)
    public static let readByTypeResponse = ATTOpcode(0x09)
    public static let readRequest = ATTOpcode(0x0A)
    public static let readResponse = ATTOpcode(0x0B)
    public static let readBlobRequest = ATTOpcode(0x0C)
    public static let readBlobResponse = ATTOpcode(0x0D)
    public static let readMultipleRequest = ATTOpcode(0x0E)
    public static let readMultipleResponse = ATTOpcode(0x0F)
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    public static let writeRequest = ATTOpcode(0x12)
    public static let writeResponse = ATTOpcode(0x13)
    public static let prepareWriteRequest = ATTOpcode(0x16)
    public static let prepareWriteResponse = ATTOpcode(0x17)
    public static let executeWriteRequest = ATTOpcode(0x18)
    public static let executeWriteResponse = ATTOpcode(0x19)
    public static let handleValueNotification = ATTOpcode(0x1B)
    public static let handleValueIndication = ATTOpcode(0x1D)
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    public static let writeCommand = ATTOpcode(0x52)
    public static let signedWriteCommand = ATTOpcode(0xD2)

    /// Bit 6: the PDU is a command (no response expected).
    @inlinable public var isCommand: Bool { rawValue & 0x40 != 0 }
    /// Bit 7: the PDU ends with a 12-byte authentication signature.
    @inlinable public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// How the PDU takes part in the protocol.
    public enum Kind: Hashable, Sendable {
        /// Client → server, answered by exactly one response (or Error Response).
        case request
        /// Server → client, answering the outstanding request.
        case response
        /// Client → server, never answered.
        case command
        /// Server → client, never answered.
        case notification
        /// Server → client, answered by a Confirmation.
        case indication
        /// Client → server, answering an Indication.
        case confirmation
        /// An opcode this implementation does not know.
        case unknown
    }

    /// The role of this opcode; unknown opcodes are classed by their Command flag only when known.
    public var kind: Kind {
        switch self {
        case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest, .readRequest,
            .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest, .prepareWriteRequest,
            .executeWriteRequest, .readMultipleVariableRequest:
            return .request
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse, .readByTypeResponse,
            .readResponse, .readBlobResponse, .readMultipleResponse, .readByGroupTypeResponse, .writeResponse,
            .prepareWriteResponse, .executeWriteResponse, .readMultipleVariableResponse:
            return .response
        case .writeCommand, .signedWriteCommand: return .command
        case .handleValueNotification, .multipleHandleValueNotification: return .notification
        case .handleValueIndication: return .indication
        case .handleValueConfirmation: return .confirmation
        default: return .unknown
        }
    }

    /// The response that answers this request opcode (nil for anything but a known request).
    public var responseOpcode: ATTOpcode? {
        kind == .request ? ATTOpcode(rawValue &+ 1) : nil
    }

    public var name: String {
        switch self {
        case .errorResponse: "Error Response"
        case .exchangeMTURequest: "Exchange MTU Request"
        case .exchangeMTUResponse: "Exchange MTU Response"
        case .findInformationRequest: "Find Information Request"
        case .findInformationResponse: "Find Information Response"
        case .findByTypeValueRequest: "Find By Type Value Request"
        case .findByTypeValueResponse: "Find By Type Value Response"
        case .readByTypeRequest: "Read By Type Request"
        case .readByTypeResponse: "Read By Type Response"
        case .readRequest: "Read Request"
        case .readResponse: "Read Response"
        case .readBlobRequest: "Read Blob Request"
        case .readBlobResponse: "Read Blob Response"
        case .readMultipleRequest: "Read Multiple Request"
        case .readMultipleResponse: "Read Multiple Response"
        case .readByGroupTypeRequest: "Read By Group Type Request"
        case .readByGroupTypeResponse: "Read By Group Type Response"
        case .writeRequest: "Write Request"
        case .writeResponse: "Write Response"
        case .prepareWriteRequest: "Prepare Write Request"
        case .prepareWriteResponse: "Prepare Write Response"
        case .executeWriteRequest: "Execute Write Request"
        case .executeWriteResponse: "Execute Write Response"
        case .handleValueNotification: "Handle Value Notification"
        case .handleValueIndication: "Handle Value Indication"
        case .handleValueConfirmation: "Handle Value Confirmation"
        case .readMultipleVariableRequest: "Read Multiple Variable Request"
        case .readMultipleVariableResponse: "Read Multiple Variable Response"
        case .multipleHandleValueNotification: "Multiple Handle Value Notification"
        case .writeCommand: "Write Command"
        case .signedWriteCommand: "Signed Write Command"
        default: "Unknown"
        }
    }

    public var description: String {
        "\(name) (0x\(Hex.byte(rawValue)))"
    }


    public static func < (lhs: ATTOpcode, rhs: ATTOpcode) -> Bool { lhs.rawValue < rhs.rawValue }
}
