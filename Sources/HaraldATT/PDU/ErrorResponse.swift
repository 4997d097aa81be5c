import HaraldCodec
import HaraldCore

/// Error Response (0x01): the server refuses `requestOpcode` because of `error` at `handle`
/// (0x0000 when no handle applies).
public struct ATTErrorResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.errorResponse
    /// Opcode of the request that failed.
    public var requestOpcode: ATTOpcode
    /// The attribute handle that caused the error, or 0x0000.
    public var handle: UInt16
    /// Why the server refused the request.
    public var error: ATTErrorCode

    /// A refusal of the request with `requestOpcode`, at `handle` (0 when no handle applies).
    public init(requestOpcode: ATTOpcode, handle: UInt16, error: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.error = error
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        requestOpcode = ATTOpcode(try reader.read(UInt8.self, field: "requestOpcode"))
        handle = try reader.read(UInt16.self, field: "handle")
        error = ATTErrorCode(try reader.read(UInt8.self, field: "errorCode"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(requestOpcode.rawValue)
        writer.write(handle)
        writer.write(error.rawValue)
    }
}
