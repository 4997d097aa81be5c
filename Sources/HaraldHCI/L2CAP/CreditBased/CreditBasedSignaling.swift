import HaraldCodec

// The signaling commands of LE Credit Based and Enhanced Credit Based Flow Control Mode (Core
// spec Vol 3 Part A §4.22–4.27), as values: each is the data of one command on the LE signaling
// channel (CID 0x0005), after the command's code, identifier and length.

/// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ (code 0x14): opens one channel on `spsm`.
public struct LECreditBasedConnectionRequest: ByteCodable, Hashable, Sendable {
    /// The protocol/service multiplexer the channel is for (0x0001–0x00FF on LE).
    public var spsm: UInt16
    /// The requester's channel identifier: where the responder sends the channel's K-frames.
    public var sourceCID: UInt16
    /// Largest SDU the requester takes, in bytes (at least 23).
    public var mtu: UInt16
    /// Largest K-frame payload the requester takes, in bytes (23–65,533).
    public var mps: UInt16
    /// K-frames the responder may send before it is given more credits.
    public var initialCredits: UInt16

    public init(spsm: UInt16, sourceCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16) {
        (self.spsm, self.sourceCID, self.mtu, self.mps, self.initialCredits) = (spsm, sourceCID, mtu, mps, initialCredits)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        spsm = try reader.read(field: "spsm")
        sourceCID = try reader.read(field: "sourceCID")
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        initialCredits = try reader.read(field: "initialCredits")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        for field in [spsm, sourceCID, mtu, mps, initialCredits] { writer.write(field) }
    }
}

/// L2CAP_LE_CREDIT_BASED_CONNECTION_RSP (code 0x15): the answer to an
/// ``LECreditBasedConnectionRequest``. On refusal the other fields are zero.
public struct LECreditBasedConnectionResponse: ByteCodable, Hashable, Sendable {
    /// The responder's channel identifier (0 when refused).
    public var destinationCID: UInt16
    public var mtu: UInt16
    public var mps: UInt16
    public var initialCredits: UInt16
    public var result: CreditBasedConnectionResult

    public init(destinationCID: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: CreditBasedConnectionResult) {
        (self.destinationCID, self.mtu, self.mps, self.initialCredits, self.result) = (destinationCID, mtu, mps, initialCredits, result)
    }

    /// A refusal with `result` (every other field zero, as the spec asks).
    public static func refusal(_ result: CreditBasedConnectionResult) -> Self {
        Self(destinationCID: 0, mtu: 0, mps: 0, initialCredits: 0, result: result)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        destinationCID = try reader.read(field: "destinationCID")
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        initialCredits = try reader.read(field: "initialCredits")
        result = CreditBasedConnectionResult(rawValue: try reader.read(field: "result"))
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        for field in [destinationCID, mtu, mps, initialCredits, result.rawValue] { writer.write(field) }
    }
}

/// The result of a credit-based connection request (Core spec Vol 3 Part A §4.23, §4.26).
public struct CreditBasedConnectionResult: RawRepresentable, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let successful = Self(rawValue: 0x0000)
    public static let spsmNotSupported = Self(rawValue: 0x0002)
    public static let noResourcesAvailable = Self(rawValue: 0x0004)
    public static let insufficientAuthentication = Self(rawValue: 0x0005)
    public static let insufficientAuthorization = Self(rawValue: 0x0006)
    public static let insufficientEncryptionKeySize = Self(rawValue: 0x0007)
    public static let insufficientEncryption = Self(rawValue: 0x0008)
    public static let invalidSourceCID = Self(rawValue: 0x0009)
    public static let sourceCIDAlreadyAllocated = Self(rawValue: 0x000A)
    public static let unacceptableParameters = Self(rawValue: 0x000B)
    /// Enhanced mode only: some of the channels asked for were refused for invalid parameters.
    public static let invalidParameters = Self(rawValue: 0x000C)
}

/// L2CAP_FLOW_CONTROL_CREDIT_IND (code 0x16): `credits` more K-frames may be sent on the
/// channel whose receiving end is `cid` (the sender of the indication's own CID).
public struct FlowControlCreditIndication: ByteCodable, Hashable, Sendable {
    public var cid: UInt16
    public var credits: UInt16

    public init(cid: UInt16, credits: UInt16) { (self.cid, self.credits) = (cid, credits) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        cid = try reader.read(field: "cid")
        credits = try reader.read(field: "credits")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(cid)
        writer.write(credits)
    }
}

/// L2CAP_CREDIT_BASED_CONNECTION_REQ (code 0x17): opens up to five Enhanced Credit Based
/// channels on `spsm` at once, one per source CID.
public struct CreditBasedConnectionRequest: ByteCodable, Hashable, Sendable {
    /// Most channels one request may open.
    public static let maximumChannels = 5

    public var spsm: UInt16
    /// At least 64.
    public var mtu: UInt16
    /// At least 64.
    public var mps: UInt16
    public var initialCredits: UInt16
    /// 1 to 5 channel identifiers of the requester.
    public var sourceCIDs: [UInt16]

    public init(spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: [UInt16]) {
        (self.spsm, self.mtu, self.mps, self.initialCredits, self.sourceCIDs) = (spsm, mtu, mps, initialCredits, sourceCIDs)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        spsm = try reader.read(field: "spsm")
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        initialCredits = try reader.read(field: "initialCredits")
        guard reader.remainingCount % 2 == 0 else { throw reader.invalidValue("an odd number of bytes", field: "sourceCIDs") }
        let count = reader.remainingCount / 2
        guard (1...Self.maximumChannels).contains(count) else {
            throw reader.invalidValue("\(count) channels (1 to \(Self.maximumChannels) allowed)", field: "sourceCIDs")
        }
        var cids: [UInt16] = []
        for _ in 0..<count { cids.append(try reader.read(field: "sourceCIDs")) }
        sourceCIDs = cids
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard (1...Self.maximumChannels).contains(sourceCIDs.count) else {
            throw ByteEncodingError(field: "sourceCIDs", detail: "\(sourceCIDs.count) channels (1 to \(Self.maximumChannels) allowed)")
        }
        for field in [spsm, mtu, mps, initialCredits] + sourceCIDs { writer.write(field) }
    }
}
