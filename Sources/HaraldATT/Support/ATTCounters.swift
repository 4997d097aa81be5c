/// A snapshot of an engine's protocol cost: PDUs and bytes each way, per opcode, and completed
/// request/response round trips per request opcode.
public struct ATTCounters: Sendable, Hashable {
    /// PDUs sent, by opcode.
    public var pdusSent: [ATTOpcode: Int] = [:]
    /// PDUs received, by opcode (malformed ones under their first byte).
    public var pdusReceived: [ATTOpcode: Int] = [:]
    /// Completed transactions (a request and the response or Error Response that answered it),
    /// by request opcode. An indication and its confirmation count under the indication opcode.
    public var roundTrips: [ATTOpcode: Int] = [:]
    /// Bytes of ATT PDUs sent.
    public var bytesSent = 0
    /// Bytes of ATT PDUs received.
    public var bytesReceived = 0
    /// PDUs received that were ignored: malformed, unsolicited responses, or PDUs of the other role.
    public var ignoredPDUs = 0
    /// Notifications and indications a subscriber stream dropped because its buffer was full.
    public var droppedValues = 0

    /// All counters at zero.
    public init() {}

    /// Every PDU sent.
    public var totalPDUsSent: Int { pdusSent.values.reduce(0, +) }
    /// Every PDU received.
    public var totalPDUsReceived: Int { pdusReceived.values.reduce(0, +) }
    /// Every completed round trip.
    public var totalRoundTrips: Int { roundTrips.values.reduce(0, +) }

    mutating func countSent(_ pdu: [UInt8]) {
        guard let first = pdu.first else { return }
        pdusSent[ATTOpcode(first), default: 0] += 1
        bytesSent += pdu.count
    }

    mutating func countReceived(_ pdu: [UInt8]) {
        guard let first = pdu.first else { return }
        pdusReceived[ATTOpcode(first), default: 0] += 1
        bytesReceived += pdu.count
    }

    mutating func countRoundTrip(_ opcode: ATTOpcode) {
        roundTrips[opcode, default: 0] += 1
    }
}
