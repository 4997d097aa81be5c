import HaraldCodec

/// Any ATT PDU, decoded by its opcode.
///
/// Decoding never traps: an empty input or a malformed PDU throws `ByteDecodingError` naming
/// the PDU type, field and offset; an opcode Harald does not know decodes to
/// ``unknown(opcode:parameters:)`` so the caller can answer it (a server replies Request Not
/// Supported to an unknown request and ignores an unknown command).
public enum ATTPDU: ByteCodable, Sendable, Hashable {
    /// 0x01 ATT_ERROR_RSP.
    case errorResponse(ATTErrorResponse)
    /// 0x02 ATT_EXCHANGE_MTU_REQ.
    case exchangeMTURequest(ATTExchangeMTURequest)
    /// 0x03 ATT_EXCHANGE_MTU_RSP.
    case exchangeMTUResponse(ATTExchangeMTUResponse)
    /// 0x04 ATT_FIND_INFORMATION_REQ.
    case findInformationRequest(ATTFindInformationRequest)
    /// 0x05 ATT_FIND_INFORMATION_RSP.
    case findInformationResponse(ATTFindInformationResponse)
    /// 0x06 ATT_FIND_BY_TYPE_VALUE_REQ.
    case findByTypeValueRequest(ATTFindByTypeValueRequest)
    /// 0x07 ATT_FIND_BY_TYPE_VALUE_RSP.
    case findByTypeValueResponse(ATTFindByTypeValueResponse)
    /// 0x08 ATT_READ_BY_TYPE_REQ.
    case readByTypeRequest(ATTReadByTypeRequest)
    /// 0x09 ATT_READ_BY_TYPE_RSP.
    case readByTypeResponse(ATTReadByTypeResponse)
    /// 0x0A ATT_READ_REQ.
    case readRequest(ATTReadRequest)
    /// 0x0B ATT_READ_RSP.
    case readResponse(ATTReadResponse)
    /// 0x0C ATT_READ_BLOB_REQ.
    case readBlobRequest(ATTReadBlobRequest)
    /// 0x0D ATT_READ_BLOB_RSP.
    case readBlobResponse(ATTReadBlobResponse)
    /// 0x0E ATT_READ_MULTIPLE_REQ.
    case readMultipleRequest(ATTReadMultipleRequest)
    /// 0x0F ATT_READ_MULTIPLE_RSP.
    case readMultipleResponse(ATTReadMultipleResponse)
    /// 0x10 ATT_READ_BY_GROUP_TYPE_REQ.
    case readByGroupTypeRequest(ATTReadByGroupTypeRequest)
    /// 0x11 ATT_READ_BY_GROUP_TYPE_RSP.
    case readByGroupTypeResponse(ATTReadByGroupTypeResponse)
    /// 0x12 ATT_WRITE_REQ.
    case writeRequest(ATTWriteRequest)
    /// 0x13 ATT_WRITE_RSP.
    case writeResponse(ATTWriteResponse)
    /// 0x52 ATT_WRITE_CMD.
    case writeCommand(ATTWriteCommand)
    /// 0xD2 ATT_SIGNED_WRITE_CMD.
    case signedWriteCommand(ATTSignedWriteCommand)
    /// 0x16 ATT_PREPARE_WRITE_REQ.
    case prepareWriteRequest(ATTPrepareWriteRequest)
    /// 0x17 ATT_PREPARE_WRITE_RSP.
    case prepareWriteResponse(ATTPrepareWriteResponse)
    /// 0x18 ATT_EXECUTE_WRITE_REQ.
    case executeWriteRequest(ATTExecuteWriteRequest)
    /// 0x19 ATT_EXECUTE_WRITE_RSP.
    case executeWriteResponse(ATTExecuteWriteResponse)
    /// 0x1B ATT_HANDLE_VALUE_NTF.
    case handleValueNotification(ATTHandleValueNotification)
    /// 0x1D ATT_HANDLE_VALUE_IND.
    case handleValueIndication(ATTHandleValueIndication)
    /// 0x1E ATT_HANDLE_VALUE_CFM.
    case handleValueConfirmation(ATTHandleValueConfirmation)
    /// 0x20 ATT_READ_MULTIPLE_VARIABLE_REQ.
    case readMultipleVariableRequest(ATTReadMultipleVariableRequest)
    /// 0x21 ATT_READ_MULTIPLE_VARIABLE_RSP.
    case readMultipleVariableResponse(ATTReadMultipleVariableResponse)
    /// 0x23 ATT_MULTIPLE_HANDLE_VALUE_NTF.
    case multipleHandleValueNotification(ATTMultipleHandleValueNotification)
    /// An opcode this implementation does not know, with the bytes after it.
    case unknown(opcode: ATTOpcode, parameters: [UInt8])

    /// The PDU's opcode.
    public var opcode: ATTOpcode {
        switch self {
        case .errorResponse: ATTErrorResponse.opcode
        case .exchangeMTURequest: ATTExchangeMTURequest.opcode
        case .exchangeMTUResponse: ATTExchangeMTUResponse.opcode
        case .findInformationRequest: ATTFindInformationRequest.opcode
        case .findInformationResponse: ATTFindInformationResponse.opcode
        case .findByTypeValueRequest: ATTFindByTypeValueRequest.opcode
        case .findByTypeValueResponse: ATTFindByTypeValueResponse.opcode
        case .readByTypeRequest: ATTReadByTypeRequest.opcode
        case .readByTypeResponse: ATTReadByTypeResponse.opcode
        case .readRequest: ATTReadRequest.opcode
        case .readResponse: ATTReadResponse.opcode
        case .readBlobRequest: ATTReadBlobRequest.opcode
        case .readBlobResponse: ATTReadBlobResponse.opcode
        case .readMultipleRequest: ATTReadMultipleRequest.opcode
        case .readMultipleResponse: ATTReadMultipleResponse.opcode
        case .readByGroupTypeRequest: ATTReadByGroupTypeRequest.opcode
        case .readByGroupTypeResponse: ATTReadByGroupTypeResponse.opcode
        case .writeRequest: ATTWriteRequest.opcode
        case .writeResponse: ATTWriteResponse.opcode
        case .writeCommand: ATTWriteCommand.opcode
        case .signedWriteCommand: ATTSignedWriteCommand.opcode
        case .prepareWriteRequest: ATTPrepareWriteRequest.opcode
        case .prepareWriteResponse: ATTPrepareWriteResponse.opcode
        case .executeWriteRequest: ATTExecuteWriteRequest.opcode
        case .executeWriteResponse: ATTExecuteWriteResponse.opcode
        case .handleValueNotification: ATTHandleValueNotification.opcode
        case .handleValueIndication: ATTHandleValueIndication.opcode
        case .handleValueConfirmation: ATTHandleValueConfirmation.opcode
        case .readMultipleVariableRequest: ATTReadMultipleVariableRequest.opcode
        case .readMultipleVariableResponse: ATTReadMultipleVariableResponse.opcode
        case .multipleHandleValueNotification: ATTMultipleHandleValueNotification.opcode
        case .unknown(let opcode, _): opcode
        }
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        guard let raw = reader.peekByte() else {
            throw ByteDecodingError(typeName: "ATTPDU", field: "opcode", offset: reader.offset, reason: .truncated(needed: 1, available: 0))
        }
        switch ATTOpcode(raw) {
        case ATTErrorResponse.opcode: self = .errorResponse(try Self.decode(ATTErrorResponse.self, from: &reader))
        case ATTExchangeMTURequest.opcode: self = .exchangeMTURequest(try Self.decode(ATTExchangeMTURequest.self, from: &reader))
        case ATTExchangeMTUResponse.opcode: self = .exchangeMTUResponse(try Self.decode(ATTExchangeMTUResponse.self, from: &reader))
        case ATTFindInformationRequest.opcode: self = .findInformationRequest(try Self.decode(ATTFindInformationRequest.self, from: &reader))
        case ATTFindInformationResponse.opcode: self = .findInformationResponse(try Self.decode(ATTFindInformationResponse.self, from: &reader))
        case ATTFindByTypeValueRequest.opcode: self = .findByTypeValueRequest(try Self.decode(ATTFindByTypeValueRequest.self, from: &reader))
        case ATTFindByTypeValueResponse.opcode: self = .findByTypeValueResponse(try Self.decode(ATTFindByTypeValueResponse.self, from: &reader))
        case ATTReadByTypeRequest.opcode: self = .readByTypeRequest(try Self.decode(ATTReadByTypeRequest.self, from: &reader))
        case ATTReadByTypeResponse.opcode: self = .readByTypeResponse(try Self.decode(ATTReadByTypeResponse.self, from: &reader))
        case ATTReadRequest.opcode: self = .readRequest(try Self.decode(ATTReadRequest.self, from: &reader))
        case ATTReadResponse.opcode: self = .readResponse(try Self.decode(ATTReadResponse.self, from: &reader))
        case ATTReadBlobRequest.opcode: self = .readBlobRequest(try Self.decode(ATTReadBlobRequest.self, from: &reader))
        case ATTReadBlobResponse.opcode: self = .readBlobResponse(try Self.decode(ATTReadBlobResponse.self, from: &reader))
        case ATTReadMultipleRequest.opcode: self = .readMultipleRequest(try Self.decode(ATTReadMultipleRequest.self, from: &reader))
        case ATTReadMultipleResponse.opcode: self = .readMultipleResponse(try Self.decode(ATTReadMultipleResponse.self, from: &reader))
        case ATTReadByGroupTypeRequest.opcode: self = .readByGroupTypeRequest(try Self.decode(ATTReadByGroupTypeRequest.self, from: &reader))
        case ATTReadByGroupTypeResponse.opcode: self = .readByGroupTypeResponse(try Self.decode(ATTReadByGroupTypeResponse.self, from: &reader))
        case ATTWriteRequest.opcode: self = .writeRequest(try Self.decode(ATTWriteRequest.self, from: &reader))
        case ATTWriteResponse.opcode: self = .writeResponse(try Self.decode(ATTWriteResponse.self, from: &reader))
        case ATTWriteCommand.opcode: self = .writeCommand(try Self.decode(ATTWriteCommand.self, from: &reader))
        case ATTSignedWriteCommand.opcode: self = .signedWriteCommand(try Self.decode(ATTSignedWriteCommand.self, from: &reader))
        case ATTPrepareWriteRequest.opcode: self = .prepareWriteRequest(try Self.decode(ATTPrepareWriteRequest.self, from: &reader))
        case ATTPrepareWriteResponse.opcode: self = .prepareWriteResponse(try Self.decode(ATTPrepareWriteResponse.self, from: &reader))
        case ATTExecuteWriteRequest.opcode: self = .executeWriteRequest(try Self.decode(ATTExecuteWriteRequest.self, from: &reader))
        case ATTExecuteWriteResponse.opcode: self = .executeWriteResponse(try Self.decode(ATTExecuteWriteResponse.self, from: &reader))
        case ATTHandleValueNotification.opcode: self = .handleValueNotification(try Self.decode(ATTHandleValueNotification.self, from: &reader))
        case ATTHandleValueIndication.opcode: self = .handleValueIndication(try Self.decode(ATTHandleValueIndication.self, from: &reader))
        case ATTHandleValueConfirmation.opcode: self = .handleValueConfirmation(try Self.decode(ATTHandleValueConfirmation.self, from: &reader))
        case ATTReadMultipleVariableRequest.opcode: self = .readMultipleVariableRequest(try Self.decode(ATTReadMultipleVariableRequest.self, from: &reader))
        case ATTReadMultipleVariableResponse.opcode: self = .readMultipleVariableResponse(try Self.decode(ATTReadMultipleVariableResponse.self, from: &reader))
        case ATTMultipleHandleValueNotification.opcode:
            self = .multipleHandleValueNotification(try Self.decode(ATTMultipleHandleValueNotification.self, from: &reader))
        default:
            _ = try reader.read(UInt8.self, field: "opcode")
            self = .unknown(opcode: ATTOpcode(raw), parameters: reader.readRemainingBytes())
        }
    }

    /// Decodes one PDU type, naming it in errors and rejecting trailing bytes.
    private static func decode<T: ATTPDUCodable>(_ type: T.Type, from reader: inout ByteReader) throws(ByteDecodingError) -> T {
        do {
            let value = try T(from: &reader)
            try reader.expectEnd()
            return value
        } catch {
            var error = error
            if error.typeName.isEmpty { error.typeName = String(describing: T.self) }
            throw error
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        switch self {
        case .errorResponse(let pdu): try pdu.encode(to: &writer)
        case .exchangeMTURequest(let pdu): try pdu.encode(to: &writer)
        case .exchangeMTUResponse(let pdu): try pdu.encode(to: &writer)
        case .findInformationRequest(let pdu): try pdu.encode(to: &writer)
        case .findInformationResponse(let pdu): try pdu.encode(to: &writer)
        case .findByTypeValueRequest(let pdu): try pdu.encode(to: &writer)
        case .findByTypeValueResponse(let pdu): try pdu.encode(to: &writer)
        case .readByTypeRequest(let pdu): try pdu.encode(to: &writer)
        case .readByTypeResponse(let pdu): try pdu.encode(to: &writer)
        case .readRequest(let pdu): try pdu.encode(to: &writer)
        case .readResponse(let pdu): try pdu.encode(to: &writer)
        case .readBlobRequest(let pdu): try pdu.encode(to: &writer)
        case .readBlobResponse(let pdu): try pdu.encode(to: &writer)
        case .readMultipleRequest(let pdu): try pdu.encode(to: &writer)
        case .readMultipleResponse(let pdu): try pdu.encode(to: &writer)
        case .readByGroupTypeRequest(let pdu): try pdu.encode(to: &writer)
        case .readByGroupTypeResponse(let pdu): try pdu.encode(to: &writer)
        case .writeRequest(let pdu): try pdu.encode(to: &writer)
        case .writeResponse(let pdu): try pdu.encode(to: &writer)
        case .writeCommand(let pdu): try pdu.encode(to: &writer)
        case .signedWriteCommand(let pdu): try pdu.encode(to: &writer)
        case .prepareWriteRequest(let pdu): try pdu.encode(to: &writer)
        case .prepareWriteResponse(let pdu): try pdu.encode(to: &writer)
        case .executeWriteRequest(let pdu): try pdu.encode(to: &writer)
        case .executeWriteResponse(let pdu): try pdu.encode(to: &writer)
        case .handleValueNotification(let pdu): try pdu.encode(to: &writer)
        case .handleValueIndication(let pdu): try pdu.encode(to: &writer)
        case .handleValueConfirmation(let pdu): try pdu.encode(to: &writer)
        case .readMultipleVariableRequest(let pdu): try pdu.encode(to: &writer)
        case .readMultipleVariableResponse(let pdu): try pdu.encode(to: &writer)
        case .multipleHandleValueNotification(let pdu): try pdu.encode(to: &writer)
        case .unknown(let opcode, let parameters):
            writer.write(opcode.rawValue)
            writer.write(bytes: parameters)
        }
    }
}

extension ATTPDU {
    /// The PDU value inside the case (nil for ``unknown(opcode:parameters:)``).
    public var body: (any ATTPDUCodable)? {
        switch self {
        case .errorResponse(let pdu): pdu
        case .exchangeMTURequest(let pdu): pdu
        case .exchangeMTUResponse(let pdu): pdu
        case .findInformationRequest(let pdu): pdu
        case .findInformationResponse(let pdu): pdu
        case .findByTypeValueRequest(let pdu): pdu
        case .findByTypeValueResponse(let pdu): pdu
        case .readByTypeRequest(let pdu): pdu
        case .readByTypeResponse(let pdu): pdu
        case .readRequest(let pdu): pdu
        case .readResponse(let pdu): pdu
        case .readBlobRequest(let pdu): pdu
        case .readBlobResponse(let pdu): pdu
        case .readMultipleRequest(let pdu): pdu
        case .readMultipleResponse(let pdu): pdu
        case .readByGroupTypeRequest(let pdu): pdu
        case .readByGroupTypeResponse(let pdu): pdu
        case .writeRequest(let pdu): pdu
        case .writeResponse(let pdu): pdu
        case .writeCommand(let pdu): pdu
        case .signedWriteCommand(let pdu): pdu
        case .prepareWriteRequest(let pdu): pdu
        case .prepareWriteResponse(let pdu): pdu
        case .executeWriteRequest(let pdu): pdu
        case .executeWriteResponse(let pdu): pdu
        case .handleValueNotification(let pdu): pdu
        case .handleValueIndication(let pdu): pdu
        case .handleValueConfirmation(let pdu): pdu
        case .readMultipleVariableRequest(let pdu): pdu
        case .readMultipleVariableResponse(let pdu): pdu
        case .multipleHandleValueNotification(let pdu): pdu
        case .unknown: nil
        }
    }

    /// The PDU as `type`, or nil when it is another PDU.
    public func `as`<T: ATTPDUCodable>(_ type: T.Type) -> T? {
        body as? T
    }
}
