import HaraldCodec

/// One command on the LE signaling channel (CID 0x0005, Core spec Vol 3 Part A §4): a code, the
/// identifier that pairs a request with its response, and the command's data. On LE each
/// signaling PDU carries exactly one command.
public struct SignalingCommand: Hashable, Sendable {
    /// What the command is (``LESignalingCode``).
    public var code: UInt8
    /// Chosen by the requester (never 0); a response repeats it.
    public var identifier: UInt8
    /// The command's fields, after the 4-octet header.
    public var data: [UInt8]

    /// A command with its fields as bytes.
    public init(code: UInt8, identifier: UInt8, data: [UInt8]) {
        (self.code, self.identifier, self.data) = (code, identifier, data)
    }

    /// A command with `value`'s bytes as its data.
    public init(code: UInt8, identifier: UInt8, _ value: some ByteEncodable) {
        self.init(code: code, identifier: identifier, data: (try? value.encodedBytes()) ?? [])
    }

    /// Reads the one command of a signaling PDU. Throws when the PDU is shorter than its header
    /// or its length field disagrees with the bytes that follow.
    public init(pdu: [UInt8]) throws(ByteDecodingError) {
        guard pdu.count >= 4 else {
            throw ByteDecodingError(typeName: "SignalingCommand", field: "header", offset: 0, reason: .truncated(needed: 4, available: pdu.count))
        }
        let length = Int(pdu[2]) | Int(pdu[3]) << 8
        guard pdu.count - 4 == length else {
            throw ByteDecodingError(
                typeName: "SignalingCommand", field: "length", offset: 2,
                reason: .invalidValue("length \(length) with \(pdu.count - 4) octets after the header"))
        }
        (code, identifier, data) = (pdu[0], pdu[1], Array(pdu[4...]))
    }

    /// The signaling PDU: code, identifier, little-endian length, data.
    public var pdu: [UInt8] {
        [code, identifier, UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }
}

/// L2CAP_DISCONNECTION_REQ (code 0x06) and L2CAP_DISCONNECTION_RSP (code 0x07): close one channel.
/// Both carry the channel's two identifiers as seen by the requester: the destination CID is the
/// receiver's end, the source CID the requester's.
public struct DisconnectionCommand: ByteCodable, Hashable, Sendable {
    /// The channel identifier on the device receiving the request.
    public var destinationCID: UInt16
    /// The channel identifier on the device sending the request.
    public var sourceCID: UInt16

    /// A request (or response) naming the channel by its two identifiers.
    public init(destinationCID: UInt16, sourceCID: UInt16) {
        (self.destinationCID, self.sourceCID) = (destinationCID, sourceCID)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        destinationCID = try reader.read(field: "destinationCID")
        sourceCID = try reader.read(field: "sourceCID")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(destinationCID)
        writer.write(sourceCID)
    }
}

/// L2CAP_COMMAND_REJECT_RSP (code 0x01): the peer did not take a command.
public struct CommandReject: ByteCodable, Hashable, Sendable {
    /// 0x0000 command not understood, 0x0001 signaling MTU exceeded, 0x0002 invalid CID in request.
    public var reason: UInt16
    /// Reason-specific data (for an invalid CID: the two CIDs of the request).
    public var data: [UInt8]

    /// Reason 0x0000: the command is not understood.
    public static let commandNotUnderstood: UInt16 = 0x0000
    /// Reason 0x0002: the request names a channel that is not open.
    public static let invalidCIDInRequest: UInt16 = 0x0002

    /// A reject with `reason` and its data.
    public init(reason: UInt16, data: [UInt8] = []) { (self.reason, self.data) = (reason, data) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        reason = try reader.read(field: "reason")
        data = try reader.readBytes(count: reader.remainingCount, field: "data")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(reason)
        writer.write(bytes: data)
    }
}
