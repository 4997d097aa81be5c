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

    /// A request for one channel on `spsm`.
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
    /// Largest SDU the responder takes, in bytes.
    public var mtu: UInt16
    /// Largest K-frame payload the responder takes, in bytes.
    public var mps: UInt16
    /// K-frames the requester may send before it gets more credits.
    public var initialCredits: UInt16
    /// Whether the channel was opened, and why not.
    public var result: CreditBasedConnectionResult

    /// A response with every field given.
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
    /// The 16-bit result code.
    public var rawValue: UInt16
    /// The result with code `rawValue` (any value: unknown codes are kept as they are).
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0000: the channel (every channel, in enhanced mode) is open.
    public static let successful = Self(rawValue: 0x0000)
    /// 0x0002: nothing is served on the SPSM.
    public static let spsmNotSupported = Self(rawValue: 0x0002)
    /// 0x0004: no room for another channel (in enhanced mode: for some of them).
    public static let noResourcesAvailable = Self(rawValue: 0x0004)
    /// 0x0005: the SPSM needs a (more) authenticated pairing.
    public static let insufficientAuthentication = Self(rawValue: 0x0005)
    /// 0x0006: the responder's application did not allow it.
    public static let insufficientAuthorization = Self(rawValue: 0x0006)
    /// 0x0007: the link's key is shorter than the SPSM needs.
    public static let insufficientEncryptionKeySize = Self(rawValue: 0x0007)
    /// 0x0008: the SPSM needs an encrypted link.
    public static let insufficientEncryption = Self(rawValue: 0x0008)
    /// 0x0009: a source CID is outside the dynamic range.
    public static let invalidSourceCID = Self(rawValue: 0x0009)
    /// 0x000A: a source CID is in use on the link already.
    public static let sourceCIDAlreadyAllocated = Self(rawValue: 0x000A)
    /// 0x000B: the MTU, MPS or credits are not acceptable.
    public static let unacceptableParameters = Self(rawValue: 0x000B)
    /// Enhanced mode only: some of the channels asked for were refused for invalid parameters.
    public static let invalidParameters = Self(rawValue: 0x000C)
}

/// L2CAP_FLOW_CONTROL_CREDIT_IND (code 0x16): `credits` more K-frames may be sent on the
/// channel whose receiving end is `cid` (the sender of the indication's own CID).
public struct FlowControlCreditIndication: ByteCodable, Hashable, Sendable {
    /// The channel identifier of the indication's sender: its receiving end of the channel.
    public var cid: UInt16
    /// How many more K-frames the receiver of the indication may send (1–65,535).
    public var credits: UInt16

    /// An indication of `credits` more credits on `cid`.
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

    /// The SPSM the channels are for.
    public var spsm: UInt16
    /// Largest SDU the requester takes on each channel, in bytes (at least 64).
    public var mtu: UInt16
    /// Largest K-frame payload the requester takes, in bytes (at least 64).
    public var mps: UInt16
    /// K-frames the responder may send on each channel before it gets more credits.
    public var initialCredits: UInt16
    /// 1 to 5 channel identifiers of the requester.
    public var sourceCIDs: [UInt16]

    /// A request for one channel per source CID.
    public init(spsm: UInt16, mtu: UInt16, mps: UInt16, initialCredits: UInt16, sourceCIDs: [UInt16]) {
        (self.spsm, self.mtu, self.mps, self.initialCredits, self.sourceCIDs) = (spsm, mtu, mps, initialCredits, sourceCIDs)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        spsm = try reader.read(field: "spsm")
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        initialCredits = try reader.read(field: "initialCredits")
        sourceCIDs = try readCIDs(&reader, field: "sourceCIDs", allowingNone: false)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard (1...Self.maximumChannels).contains(sourceCIDs.count) else {
            throw ByteEncodingError(field: "sourceCIDs", detail: "\(sourceCIDs.count) channels (1 to \(Self.maximumChannels) allowed)")
        }
        for field in [spsm, mtu, mps, initialCredits] + sourceCIDs { writer.write(field) }
    }
}

/// L2CAP_CREDIT_BASED_CONNECTION_RSP (code 0x18): the answer to a
/// ``CreditBasedConnectionRequest``, one destination CID per channel asked for, in the request's
/// order; 0 marks a channel that was refused.
public struct CreditBasedConnectionResponse: ByteCodable, Hashable, Sendable {
    /// Largest SDU the responder takes on each accepted channel, in bytes.
    public var mtu: UInt16
    /// Largest K-frame payload the responder takes, in bytes.
    public var mps: UInt16
    /// K-frames the requester may send on each accepted channel before it gets more credits.
    public var initialCredits: UInt16
    /// For all channels, or for the refused ones when some were accepted.
    public var result: CreditBasedConnectionResult
    /// The responder's channel identifiers (0 for a refused channel), up to five.
    public var destinationCIDs: [UInt16]

    /// A response with every field given.
    public init(mtu: UInt16, mps: UInt16, initialCredits: UInt16, result: CreditBasedConnectionResult, destinationCIDs: [UInt16]) {
        (self.mtu, self.mps, self.initialCredits, self.result, self.destinationCIDs) = (mtu, mps, initialCredits, result, destinationCIDs)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        initialCredits = try reader.read(field: "initialCredits")
        result = CreditBasedConnectionResult(rawValue: try reader.read(field: "result"))
        destinationCIDs = try readCIDs(&reader, field: "destinationCIDs", allowingNone: true)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard destinationCIDs.count <= CreditBasedConnectionRequest.maximumChannels else {
            throw ByteEncodingError(field: "destinationCIDs", detail: "\(destinationCIDs.count) channels (at most 5)")
        }
        for field in [mtu, mps, initialCredits, result.rawValue] + destinationCIDs { writer.write(field) }
    }
}

/// L2CAP_CREDIT_BASED_RECONFIGURE_REQ (code 0x19): the sender can now take SDUs up to `mtu` and
/// K-frames up to `mps` on the listed channels (Enhanced Credit Based Flow Control Mode). The
/// MTU may only grow; the MPS may shrink only when one channel is listed.
public struct CreditBasedReconfigureRequest: ByteCodable, Hashable, Sendable {
    /// The sender's new receive MTU, in bytes (at least 64).
    public var mtu: UInt16
    /// The sender's new receive MPS, in bytes (at least 64).
    public var mps: UInt16
    /// The sender's own channel identifiers of the channels this applies to, 1 to 5.
    public var cids: [UInt16]

    /// A request for the new `mtu` and `mps` on `cids`.
    public init(mtu: UInt16, mps: UInt16, cids: [UInt16]) { (self.mtu, self.mps, self.cids) = (mtu, mps, cids) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        mtu = try reader.read(field: "mtu")
        mps = try reader.read(field: "mps")
        cids = try readCIDs(&reader, field: "cids", allowingNone: false)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard (1...CreditBasedConnectionRequest.maximumChannels).contains(cids.count) else {
            throw ByteEncodingError(field: "cids", detail: "\(cids.count) channels (1 to 5 allowed)")
        }
        for field in [mtu, mps] + cids { writer.write(field) }
    }
}

/// L2CAP_CREDIT_BASED_RECONFIGURE_RSP (code 0x1A): the answer to a
/// ``CreditBasedReconfigureRequest``.
public struct CreditBasedReconfigureResult: RawRepresentable, ByteCodable, Hashable, Sendable {
    /// The 16-bit result code.
    public var rawValue: UInt16
    /// The result with code `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The new MTU and MPS apply.
    public static let successful = Self(rawValue: 0x0000)
    /// Refused: the MTU would shrink.
    public static let mtuReductionNotAllowed = Self(rawValue: 0x0001)
    /// Refused: the MPS would shrink on more than one channel at once.
    public static let mpsReductionNotAllowed = Self(rawValue: 0x0002)
    /// Refused: a listed channel is not open.
    public static let invalidDestinationCIDs = Self(rawValue: 0x0003)
    /// Refused: other unacceptable parameters (an MTU or MPS under 64).
    public static let unacceptableParameters = Self(rawValue: 0x0004)

    public init(from reader: inout ByteReader) throws(ByteDecodingError) { rawValue = try reader.read(field: "result") }
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) { writer.write(rawValue) }
}

/// Reads the list of channel identifiers that ends an enhanced-mode command: an even number of
/// octets, at most five identifiers (at least one unless `allowingNone`).
private func readCIDs(_ reader: inout ByteReader, field: String, allowingNone: Bool) throws(ByteDecodingError) -> [UInt16] {
    guard reader.remainingCount % 2 == 0 else { throw reader.invalidValue("an odd number of bytes", field: field) }
    let count = reader.remainingCount / 2
    guard count <= CreditBasedConnectionRequest.maximumChannels, allowingNone || count >= 1 else {
        throw reader.invalidValue("\(count) channels (\(allowingNone ? 0 : 1) to 5 allowed)", field: field)
    }
    var cids: [UInt16] = []
    for _ in 0..<count { cids.append(try reader.read(field: field)) }
    return cids
}
