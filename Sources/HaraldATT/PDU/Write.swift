import HaraldCodec

/// Write Request (0x12): write `value` to the attribute at `handle`; answered by a Write Response.
public struct ATTWriteRequest: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.writeRequest
    public var handle: UInt16
    /// At most ATT_MTU − 3 bytes.
    public var value: [UInt8]

    /// A write of `value` to the attribute at `handle`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// Write Response (0x13): the write succeeded. No parameters.
public struct ATTWriteResponse: ATTPDUCodable {
    public static let opcode = ATTOpcode.writeResponse

    /// The response (it has no parameters).
    public init() {}

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.opcode.rawValue)
    }
}

/// Write Command (0x52): write without response ("write without response" in GATT).
public struct ATTWriteCommand: ATTHandleValuePDU {
    public static let opcode = ATTOpcode.writeCommand
    public var handle: UInt16
    /// At most ATT_MTU − 3 bytes.
    public var value: [UInt8]

    /// A write without response of `value` to the attribute at `handle`.
    public init(handle: UInt16, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// Signed Write Command (0xD2): a Write Command followed by a 12-byte authentication signature
/// (sign counter u32 + 8-byte CMAC). Harald parses it but does not verify signatures.
public struct ATTSignedWriteCommand: ATTPDUCodable {
    public static let opcode = ATTOpcode.signedWriteCommand
    /// Size of the Authentication Signature, in bytes.
    public static let signatureSize = 12
    /// The attribute written.
    public var handle: UInt16
    /// At most ATT_MTU − 15 bytes.
    public var value: [UInt8]
    /// The 12-byte Authentication Signature, as received.
    public var signature: [UInt8]

    /// A signed write; `signature` is the 12-byte sign counter and MAC.
    public init(handle: UInt16, value: [UInt8], signature: [UInt8]) {
        self.handle = handle
        self.value = value
        self.signature = signature
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        try reader.expectOpcode(Self.opcode)
        handle = try reader.read(UInt16.self, field: "handle")
        guard reader.remainingCount >= Self.signatureSize else {
            throw ByteDecodingError(
                field: "authenticationSignature", offset: reader.offset,
                reason: .truncated(needed: Self.signatureSize, available: reader.remainingCount))
        }
        value = try reader.readBytes(count: reader.remainingCount - Self.signatureSize, field: "value")
        signature = try reader.readBytes(count: Self.signatureSize, field: "authenticationSignature")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard signature.count == Self.signatureSize else {
            throw ByteEncodingError(field: "signature", detail: "must be \(Self.signatureSize) bytes, not \(signature.count)")
        }
        writer.write(Self.opcode.rawValue)
        writer.write(handle)
        writer.write(bytes: value)
        writer.write(bytes: signature)
    }
}
