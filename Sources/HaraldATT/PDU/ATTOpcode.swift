import HaraldCodec
/// The first byte of every ATT PDU (Core spec Vol 3 Part F §3.3): six bits of method, bit 6 the
/// Command flag, bit 7 the Authentication Signature flag.
public struct ATTOpcode: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The opcode byte as it starts the PDU, Command and Authentication Signature flags included.
    public var rawValue: UInt8

    /// The opcode with this byte; any value is accepted, assigned or not.
    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// An opcode from its byte (bit 6: command, bit 7: signed).
    @inlinable
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 ATT_ERROR_RSP: the server refuses a request, naming the request, the handle and the reason.
    public static let errorResponse = ATTOpcode(0x01)
    /// 0x02 ATT_EXCHANGE_MTU_REQ: the client's receive MTU.
    public static let exchangeMTURequest = ATTOpcode(0x02)
    /// 0x03 ATT_EXCHANGE_MTU_RSP: the server's receive MTU; both then use the smaller.
    public static let exchangeMTUResponse = ATTOpcode(0x03)
    /// 0x04 ATT_FIND_INFORMATION_REQ: the types of the attributes in a handle range (descriptor discovery).
    public static let findInformationRequest = ATTOpcode(0x04)
    /// 0x05 ATT_FIND_INFORMATION_RSP: handle and type pairs.
    public static let findInformationResponse = ATTOpcode(0x05)
    /// 0x06 ATT_FIND_BY_TYPE_VALUE_REQ: attributes of one 16-bit type with a given value (service discovery by UUID).
    public static let findByTypeValueRequest = ATTOpcode(0x06)
    /// 0x07 ATT_FIND_BY_TYPE_VALUE_RSP: the matching handles and their group ends.
    public static let findByTypeValueResponse = ATTOpcode(0x07)
    /// 0x08 ATT_READ_BY_TYPE_REQ: the values of attributes of one type in a range (characteristic discovery, reads by UUID).
    public static let readByTypeRequest = ATTOpcode(0x08)
    /// 0x09 ATT_READ_BY_TYPE_RSP: handle and value pairs of equal length.
    public static let readByTypeResponse = ATTOpcode(0x09)
    /// 0x0A ATT_READ_REQ: one attribute's value.
    public static let readRequest = ATTOpcode(0x0A)
    /// 0x0B ATT_READ_RSP: the value, cut to ATT_MTU − 1 bytes.
    public static let readResponse = ATTOpcode(0x0B)
    /// 0x0C ATT_READ_BLOB_REQ: a long value from an offset.
    public static let readBlobRequest = ATTOpcode(0x0C)
    /// 0x0D ATT_READ_BLOB_RSP: the value from that offset, up to ATT_MTU − 1 bytes.
    public static let readBlobResponse = ATTOpcode(0x0D)
    /// 0x0E ATT_READ_MULTIPLE_REQ: several fixed-length values at once.
    public static let readMultipleRequest = ATTOpcode(0x0E)
    /// 0x0F ATT_READ_MULTIPLE_RSP: the values concatenated.
    public static let readMultipleResponse = ATTOpcode(0x0F)
    /// 0x10 ATT_READ_BY_GROUP_TYPE_REQ: grouping attributes of a type in a range (primary service discovery).
    public static let readByGroupTypeRequest = ATTOpcode(0x10)
    /// 0x11 ATT_READ_BY_GROUP_TYPE_RSP: each group's handle range and value.
    public static let readByGroupTypeResponse = ATTOpcode(0x11)
    /// 0x12 ATT_WRITE_REQ: write a value and wait for the answer.
    public static let writeRequest = ATTOpcode(0x12)
    /// 0x13 ATT_WRITE_RSP: the write was applied.
    public static let writeResponse = ATTOpcode(0x13)
    /// 0x16 ATT_PREPARE_WRITE_REQ: queue part of a long or reliable write.
    public static let prepareWriteRequest = ATTOpcode(0x16)
    /// 0x17 ATT_PREPARE_WRITE_RSP: the part, echoed back for checking.
    public static let prepareWriteResponse = ATTOpcode(0x17)
    /// 0x18 ATT_EXECUTE_WRITE_REQ: apply or cancel the queued parts.
    public static let executeWriteRequest = ATTOpcode(0x18)
    /// 0x19 ATT_EXECUTE_WRITE_RSP: the queue was applied or cancelled.
    public static let executeWriteResponse = ATTOpcode(0x19)
    /// 0x1B ATT_HANDLE_VALUE_NTF: a value the server pushes, not acknowledged.
    public static let handleValueNotification = ATTOpcode(0x1B)
    /// 0x1D ATT_HANDLE_VALUE_IND: a value the server pushes and the client confirms.
    public static let handleValueIndication = ATTOpcode(0x1D)
    /// 0x1E ATT_HANDLE_VALUE_CFM: the client received an indication.
    public static let handleValueConfirmation = ATTOpcode(0x1E)
    /// 0x20 ATT_READ_MULTIPLE_VARIABLE_REQ: several values of any length at once (ATT of Bluetooth 5.2).
    public static let readMultipleVariableRequest = ATTOpcode(0x20)
    /// 0x21 ATT_READ_MULTIPLE_VARIABLE_RSP: each value with its length.
    public static let readMultipleVariableResponse = ATTOpcode(0x21)
    /// 0x23 ATT_MULTIPLE_HANDLE_VALUE_NTF: several notified values in one PDU.
    public static let multipleHandleValueNotification = ATTOpcode(0x23)
    /// 0x52 ATT_WRITE_CMD: write without response.
    public static let writeCommand = ATTOpcode(0x52)
    /// 0xD2 ATT_SIGNED_WRITE_CMD: write without response, signed with the CSRK.
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

    /// The opcode's name in the specification, such as `Read Request`.
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

    /// The PDU's name in the specification and its opcode byte, e.g. `Read Request (0x0A)`;
    /// `Unknown (0x3F)` for a byte ATT does not assign.
    public var description: String {
        "\(name) (0x\(Hex.byte(rawValue)))"
    }

    /// Orders by the opcode byte.
    public static func < (lhs: ATTOpcode, rhs: ATTOpcode) -> Bool { lhs.rawValue < rhs.rawValue }
}
