/// The PDUs a peer sent on the SMP channel that the pairing procedure has not taken yet, oldest
/// first, at most ``capacity`` of them.
///
/// Pairing is a strict exchange: a well-behaved peer has one PDU on the way, a few during key
/// distribution. A peer that floods the channel while the procedure waits for something else (a
/// person typing a passkey, say) has every PDU past the capacity dropped and counted; the
/// procedure then fails on the out-of-sequence PDUs it did keep, as the spec asks.
struct SMPPendingPDUs: Sendable {
    /// The most PDUs that wait; later ones are dropped.
    static let capacity = 16

    private var pdus: [[UInt8]] = []
    /// PDUs dropped because ``capacity`` were already waiting.
    private(set) var dropped = 0

    var isEmpty: Bool { pdus.isEmpty }
    var count: Int { pdus.count }

    /// Keeps `pdu` unless the capacity is reached, in which case it is dropped.
    mutating func append(_ pdu: [UInt8]) {
        if pdus.count < Self.capacity { pdus.append(pdu) } else { dropped += 1 }
    }

    /// The oldest PDU waiting, removed.
    mutating func takeFirst() -> [UInt8]? { pdus.isEmpty ? nil : pdus.removeFirst() }
}
