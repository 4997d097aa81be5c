/// Command flow control between host and controller (Core spec Vol 4 Part E §4.4): which command
/// goes to the controller next, and which command an answer belongs to.
///
/// The controller says in every Command Complete and Command Status how many commands it takes
/// now (Num_HCI_Command_Packets); commands wait for that credit and go out in the order they
/// were asked for. An answer belongs to the oldest command sent with its opcode; an answer with
/// opcode 0 only updates the credit. A command the controller never answers must not stall the
/// host: once none is outstanding, one credit comes back.
///
/// A value with no I/O: the host feeds it events and writes the commands it hands out.
package struct HCICommandFlow: Sendable {
    /// Commands the controller takes now. One before its first answer (the spec's initial value).
    package private(set) var credits = 1
    private var queue: [(id: UInt64, command: HCICommand)] = []
    private var sent: [(id: UInt64, opcode: HCIOpcode)] = []

    package init() {}

    /// Queues a command behind those already waiting.
    package mutating func enqueue(_ command: HCICommand, id: UInt64) {
        queue.append((id, command))
    }

    /// The next command for the controller, taking a credit; nil when it takes none now or
    /// nothing waits. The command then waits for its answer.
    package mutating func nextCommand() -> (id: UInt64, command: HCICommand)? {
        guard credits > 0, !queue.isEmpty else { return nil }
        let next = queue.removeFirst()
        credits -= 1
        sent.append((next.id, next.command.opcode))
        return next
    }

    /// The transport did not take command `id`: it no longer waits for an answer, and the credit
    /// it took is not lost.
    package mutating func sendFailed(_ id: UInt64) {
        sent.removeAll { $0.id == id }
        credits = max(credits, 1)
    }

    /// Command Complete or Command Status: the controller's new credit, and the command the
    /// answer belongs to (nil for a credit update alone, or an answer to nothing we sent).
    package mutating func answered(opcode: HCIOpcode, credits: UInt8) -> UInt64? {
        self.credits = Int(credits)
        guard opcode.rawValue != 0, let index = sent.firstIndex(where: { $0.opcode == opcode }) else { return nil }
        return sent.remove(at: index).id
    }

    /// Command `id` ran out of time. True when it was still queued or unanswered (it leaves
    /// either); a lost answer gives a credit back once no other command is outstanding.
    package mutating func timedOut(_ id: UInt64) -> Bool {
        if let index = queue.firstIndex(where: { $0.id == id }) {
            queue.remove(at: index)
            return true
        }
        guard let index = sent.firstIndex(where: { $0.id == id }) else { return false }
        sent.remove(at: index)
        if sent.isEmpty { credits = max(credits, 1) }
        return true
    }

    /// Forgets every command (the host is closing); returns their identifiers, queued first.
    package mutating func removeAll() -> [UInt64] {
        defer {
            queue = []
            sent = []
        }
        return queue.map(\.id) + sent.map(\.id)
    }

    /// Commands waiting for a credit.
    package var queuedCount: Int { queue.count }
    /// Commands sent and not answered yet.
    package var outstandingCount: Int { sent.count }
    /// Whether a command waits for a credit while the controller has one.
    package var canSend: Bool { credits > 0 && !queue.isEmpty }
}
