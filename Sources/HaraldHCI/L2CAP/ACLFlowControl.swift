/// One L2CAP PDU on its way to the controller: the ACL fragments not yet handed over.
package struct OutboundPDU: Sendable, Equatable {
    /// Who to tell when the last fragment is handed over.
    package let id: UInt64
    /// The connection the PDU goes out on.
    package let handle: UInt16
    /// Fragments still to send, first first.
    package var fragments: [ACLDataPacket]

    package init(id: UInt64, handle: UInt16, fragments: [ACLDataPacket]) {
        self.id = id
        self.handle = handle
        self.fragments = fragments
    }
}

/// One fragment ``ACLFlowControl`` lets go to the controller now.
package struct ACLTransmission: Sendable, Equatable {
    /// The fragment to write to the transport.
    package let packet: ACLDataPacket
    /// The PDU whose last fragment this is; nil while the PDU has more to come.
    package let completes: UInt64?
}

/// Host to controller data flow control for ACL data (Core spec Vol 4 Part E §4.1.1), the part of
/// L2CAP the spec calls the resource manager: the order in which PDU fragments go to the
/// controller, and how many may be there at once.
///
/// The controller has a fixed number of ACL buffers (LE Read Buffer Size). Each fragment handed
/// over takes one, and the controller gives them back with Number Of Completed Packets, per
/// connection; a connection that ends gives back everything it still held. PDUs leave whole and
/// in the order they were queued, so fragments of two PDUs never interleave on a link.
///
/// A value with no I/O: the host feeds it events and writes the fragments it hands out.
package struct ACLFlowControl: Sendable {
    /// Buffers free in the controller now.
    package private(set) var credits = 0
    /// The controller's buffer count, once known: completions never give back more than this.
    private var bufferCount: Int?
    private var queue: [OutboundPDU] = []
    /// Fragments handed to the controller and not yet completed, per open connection.
    private var inFlight: [UInt16: Int] = [:]

    package init() {}

    /// The controller was reset: it holds none of our data and has `bufferCount` free buffers
    /// (nil: not known yet, and no fragment goes out until it is).
    package mutating func controllerReset(bufferCount: Int?) {
        self.bufferCount = bufferCount
        credits = bufferCount ?? 0
        for handle in inFlight.keys { inFlight[handle] = 0 }
    }

    /// A connection came up; its completions count from now on.
    package mutating func linkOpened(_ handle: UInt16) {
        inFlight[handle] = 0
    }

    /// Queues a PDU behind those already waiting.
    package mutating func enqueue(_ pdu: OutboundPDU) {
        guard !pdu.fragments.isEmpty else { return }
        queue.append(pdu)
    }

    /// The next fragment for the controller, taking one of its buffers; nil when none is free or
    /// nothing waits.
    package mutating func nextTransmission() -> ACLTransmission? {
        guard credits > 0, !queue.isEmpty else { return nil }
        let packet = queue[0].fragments.removeFirst()
        let pdu = queue[0]
        if pdu.fragments.isEmpty { queue.removeFirst() }
        credits -= 1
        inFlight[pdu.handle, default: 0] += 1
        return ACLTransmission(packet: packet, completes: pdu.fragments.isEmpty ? pdu.id : nil)
    }

    /// Number Of Completed Packets: the controller freed buffers. A connection never gives back
    /// more than it holds, and an unknown handle gives back nothing.
    package mutating func packetsCompleted(_ entries: [CompletedPackets]) {
        for entry in entries {
            guard let held = inFlight[entry.handle] else { continue }
            let freed = min(Int(entry.count), held)
            inFlight[entry.handle] = held - freed
            credits += freed
        }
        clampCredits()
    }

    /// A connection ended: the controller dropped what it held of it, and its queued PDUs go
    /// nowhere. Returns the identifiers of those PDUs, whose senders should fail.
    package mutating func linkClosed(_ handle: UInt16) -> [UInt64] {
        credits += inFlight.removeValue(forKey: handle) ?? 0
        clampCredits()
        let dropped = queue.filter { $0.handle == handle }.map(\.id)
        queue.removeAll { $0.handle == handle }
        return dropped
    }

    /// Empties the queue (the host is closing); returns the identifiers of the PDUs dropped.
    package mutating func removeAll() -> [UInt64] {
        defer { queue = [] }
        return queue.map(\.id)
    }

    /// Whether the PDU is still waiting for buffers.
    package func isQueued(_ id: UInt64) -> Bool { queue.contains { $0.id == id } }

    /// PDUs waiting for buffers.
    package var queuedPDUCount: Int { queue.count }

    /// Fragments of `handle` the controller holds now.
    package func packetsInFlight(on handle: UInt16) -> Int { inFlight[handle] ?? 0 }

    private mutating func clampCredits() {
        if let bufferCount { credits = min(credits, bufferCount) }
    }
}
