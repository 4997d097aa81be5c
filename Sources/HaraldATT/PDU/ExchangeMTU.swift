import HaraldCodec

/// Exchange MTU Request (0x02): the client's receive MTU, in bytes.
public struct ATTExchangeMTURequest: ATTPDUCodable {
    public static let opcode = ATTOpcode.exchangeMTURequest
    /// Largest ATT PDU, in bytes, the client can receive.
    public var clientRxMTU: UInt16

    /// A request offering `clientRxMTU` (23…517) bytes.
    public init(clientRxMTU: UInt16) { self.clientRxMTU = clientRxMTU }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        clientRxMTU = try reader.read(UInt16.self, field: "clientRxMTU")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(clientRxMTU)
    }
}

/// Exchange MTU Response (0x03): the server's receive MTU, in bytes. Both sides then use
/// `min(clientRxMTU, serverRxMTU)` (at least 23).
public struct ATTExchangeMTUResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.exchangeMTUResponse
    /// Largest ATT PDU, in bytes, the server can receive.
    public var serverRxMTU: UInt16

    /// A response offering `serverRxMTU` (23…517) bytes.
    public init(serverRxMTU: UInt16) { self.serverRxMTU = serverRxMTU }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        serverRxMTU = try reader.read(UInt16.self, field: "serverRxMTU")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
        writer.write(serverRxMTU)
    }
}
