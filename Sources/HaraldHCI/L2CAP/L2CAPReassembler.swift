/// Rebuilds L2CAP PDUs (`[length u16][CID u16][payload]`) from the ACL fragments of one
/// connection.
///
/// A first fragment starts a PDU, continuations extend it. Inconsistent input — a continuation
/// with no PDU started, a new start while one is incomplete, more bytes than the header
/// announced, a PDU above ``maximumPDUSize`` — drops the partial PDU and is counted; it never
/// traps and never holds more than ``maximumPDUSize`` bytes.
package struct L2CAPReassembler: Sendable {
    /// A complete PDU.
    package struct PDU: Hashable, Sendable {
        /// The channel identifier of the PDU (0x0004 ATT, 0x0005 LE signaling, 0x0006 SMP).
        package var cid: UInt16
        /// The information payload, without the 4-byte basic L2CAP header.
        package var payload: [UInt8]
    }

    /// What went wrong with the fragments (each drops the PDU being built).
    package enum Problem: Hashable, Sendable {
        /// A continuation fragment arrived with no PDU being assembled.
        case continuationWithoutStart
        /// A new PDU started before the previous one had all its bytes.
        case startBeforePreviousCompleted
        /// The fragments carried more bytes than the basic header announced.
        case longerThanAnnounced
        /// The header announced a PDU of this many bytes, above the reassembler's limit.
        case tooLarge(Int)
    }

    /// Largest PDU (header included) this reassembler will build.
    package let maximumPDUSize: Int
    private var buffer: [UInt8] = []
    private var inProgress = false
    /// Problems seen so far, oldest first (the last 16).
    package private(set) var problems: [Problem] = []

    /// A reassembler that refuses PDUs announced longer than `maximumPDUSize` bytes.
    package init(maximumPDUSize: Int = 4096) {
        self.maximumPDUSize = max(4, maximumPDUSize)
    }

    /// Adds one ACL fragment; returns the PDU it completes, if any.
    package mutating func add(_ fragment: ACLDataPacket) -> PDU? {
        switch fragment.packetBoundary {
        case .firstNonFlushable, .firstFlushable, .complete:
            if inProgress { record(.startBeforePreviousCompleted) }
            buffer = fragment.data
            inProgress = true
        case .continuing:
            guard inProgress else {
                record(.continuationWithoutStart)
                return nil
            }
            buffer += fragment.data
        }
        guard buffer.count >= 4 else {
            if buffer.count > maximumPDUSize { drop(.tooLarge(buffer.count)) }
            return nil
        }
        let total = 4 + (Int(buffer[0]) | Int(buffer[1]) << 8)
        if total > maximumPDUSize {
            drop(.tooLarge(total))
            return nil
        }
        if buffer.count > total {
            drop(.longerThanAnnounced)
            return nil
        }
        guard buffer.count == total else { return nil }
        let pdu = PDU(cid: UInt16(buffer[2]) | UInt16(buffer[3]) << 8, payload: Array(buffer[4...]))
        buffer = []
        inProgress = false
        return pdu
    }

    /// True while a PDU is partly received.
    package var isBuilding: Bool { inProgress }

    private mutating func drop(_ problem: Problem) {
        record(problem)
        buffer = []
        inProgress = false
    }

    private mutating func record(_ problem: Problem) {
        problems.append(problem)
        if problems.count > 16 { problems.removeFirst() }
    }
}

/// Splits one L2CAP PDU into ACL packets of at most `maximumDataLength` bytes: the first with
/// PB 00 (first, non-flushable, as an LE host sends), the rest with PB 01 (continuation).
package func fragmentL2CAP(cid: UInt16, sdu: [UInt8], handle: UInt16, maximumDataLength: Int) -> [ACLDataPacket] {
    let length = UInt16(truncatingIfNeeded: sdu.count)
    let pdu = [UInt8(truncatingIfNeeded: length), UInt8(length >> 8), UInt8(truncatingIfNeeded: cid), UInt8(cid >> 8)] + sdu
    let size = max(1, maximumDataLength)
    var fragments: [ACLDataPacket] = []
    var start = 0
    while start < pdu.count {
        let end = min(pdu.count, start + size)
        fragments.append(
            ACLDataPacket(
                handle: handle, packetBoundary: start == 0 ? .firstNonFlushable : .continuing,
                data: Array(pdu[start..<end])))
        start = end
    }
    return fragments
}
