import HaraldCodec
import HaraldCore
import HaraldHCI

/// An in-memory controller for host tests: records what the host sends and answers commands
/// through a script the test controls (``standardAnswer(_:)`` until the test sets one).
public final class FakeController: HCITransport {
    private struct State {
        var sent: [HCIPacket] = []
        /// The test's command script; nil answers with ``standardAnswer(_:)``.
        var script: (@Sendable (HCICommand) -> [HCIPacket]?)?
        var isClosed = false
        var sendFailure: (error: HCITransportError, matches: @Sendable (HCIPacket) -> Bool)?
        var sentWaiters: [(predicate: @Sendable ([HCIPacket]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// Everything mutable; waiters are resumed after the lock is released, each once.
    private let state = Locked(State())
    /// Unbounded: a fake delivers whatever a test injects.
    public let packets = HCIPacketInbox(capacity: .max)

    /// ACL buffer the fake reports in LE Read Buffer Size.
    public let aclLength: UInt16
    public let aclCount: UInt8
    public let leFeatures: UInt64

    public init(aclLength: UInt16 = 27, aclCount: UInt8 = 4, leFeatures: UInt64 = 0) {
        self.aclLength = aclLength
        self.aclCount = aclCount
        self.leFeatures = leFeatures
    }

    /// Replaces the command script: return the packets to answer with, or nil to stay silent.
    public func answer(with script: @escaping @Sendable (HCICommand) -> [HCIPacket]?) {
        state.withLock { $0.script = script }
    }

    /// Replaces the command script with one that is handed this controller, so it need not
    /// capture it (a script that captures its controller keeps it alive for ever: the
    /// controller holds the script).
    public func answer(_ script: @escaping @Sendable (FakeController, HCICommand) -> [HCIPacket]?) {
        // Unowned: the controller holds this closure and only calls it itself.
        state.withLock { $0.script = { [unowned self] command in script(self, command) } }
    }

    /// Makes every later send of a packet that `matches` fail with `error`, as a socket write
    /// would; the packet is not recorded.
    public func failSends(with error: HCITransportError, where matches: @escaping @Sendable (HCIPacket) -> Bool) {
        state.withLock { $0.sendFailure = (error, matches) }
    }

    /// Answers every command with success and plausible return parameters.
    public func standardAnswer(_ command: HCICommand) -> [HCIPacket] {
        switch command.opcode {
        case .readBDADDR: return [Self.complete(command.opcode, [0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11])]
        case .leReadBufferSize:
            return [Self.complete(command.opcode, [0x00, UInt8(aclLength & 0xFF), UInt8(aclLength >> 8), aclCount])]
        case .leReadLocalSupportedFeatures:
            return [Self.complete(command.opcode, [0x00] + withUnsafeBytes(of: leFeatures.littleEndian) { Array($0) })]
        case .readLocalSupportedCommands: return [Self.complete(command.opcode, [0x00] + [UInt8](repeating: 0, count: 64))]
        case .readLocalSupportedFeatures: return [Self.complete(command.opcode, [0x00] + [UInt8](repeating: 0, count: 8))]
        case .leCreateConnection, .leExtendedCreateConnection, .disconnect, .leSetPHY, .leConnectionUpdate, .leReadRemoteFeatures:
            return [Self.status(command.opcode, .success)]
        default: return [Self.complete(command.opcode, [0x00])]
        }
    }

    // The events tests inject, under the names the host tests have always used.
    public static func complete(_ opcode: HCIOpcode, _ returnParameters: [UInt8], credits: UInt8 = 1) -> HCIPacket {
        ControllerEvents.complete(opcode, returnParameters, credits: credits)
    }

    public static func status(_ opcode: HCIOpcode, _ status: HCIStatus, credits: UInt8 = 1) -> HCIPacket {
        ControllerEvents.status(opcode, status, credits: credits)
    }

    public static func event(_ code: UInt8, _ parameters: [UInt8]) -> HCIPacket { ControllerEvents.event(code, parameters) }

    public static func connectionComplete(handle: UInt16, peer: BluetoothAddress, status: HCIStatus = .success) -> HCIPacket {
        ControllerEvents.connectionComplete(handle: handle, peer: peer, status: status)
    }

    public static func completedPackets(handle: UInt16, count: UInt16) -> HCIPacket {
        ControllerEvents.completedPackets(handle: handle, count: count)
    }

    public static func disconnectionComplete(handle: UInt16, reason: HCIStatus) -> HCIPacket {
        ControllerEvents.disconnectionComplete(handle: handle, reason: reason)
    }

    /// Delivers a packet to the host.
    public func inject(_ packet: HCIPacket) { packets.yield(packet) }

    /// Ends the link from the controller side.
    public func fail(_ error: HCITransportError) { packets.finish(throwing: error) }

    /// Everything the host has sent, in order.
    public var sent: [HCIPacket] { state.withLock { $0.sent } }

    /// Commands the host has sent, in order.
    public var sentCommands: [HCICommand] {
        sent.filter { $0.type == .command }.compactMap { try? HCICommand(decoding: $0.payload) }
    }

    /// ACL packets the host has sent, in order.
    public var sentACL: [ACLDataPacket] {
        sent.filter { $0.type == .acl }.compactMap { try? ACLDataPacket(decoding: $0.payload) }
    }

    /// Waits until what the host sent satisfies `predicate`.
    public func waitUntilSent(_ predicate: @escaping @Sendable ([HCIPacket]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = state.withLock { state in
                if predicate(state.sent) { return true }
                state.sentWaiters.append((predicate, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func waitForCommand(_ opcode: HCIOpcode, count: Int = 1) async {
        await waitUntilSent { packets in
            packets.filter { $0.type == .command && (try? HCICommand(decoding: $0.payload))?.opcode == opcode }.count >= count
        }
    }

    public func waitForACL(count: Int) async {
        await waitUntilSent { packets in packets.filter { $0.type == .acl }.count >= count }
    }

    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        let (ready, script) = try record(packet)
        for waiter in ready { waiter.resume() }
        if packet.type == .command, let command = try? HCICommand(decoding: packet.payload) {
            let replies: [HCIPacket]? = if let script { script(command) } else { standardAnswer(command) }
            for reply in replies ?? [] { packets.yield(reply) }
        }
    }

    private func record(_ packet: HCIPacket) throws(HCITransportError)
        -> ([CheckedContinuation<Void, Never>], (@Sendable (HCICommand) -> [HCIPacket]?)?)
    {
        try state.withLock { (state: inout State) throws(HCITransportError) in
            guard !state.isClosed else { throw .closed }
            if let failure = state.sendFailure, failure.matches(packet) { throw failure.error }
            state.sent.append(packet)
            let sent = state.sent
            let ready = state.sentWaiters.filter { $0.predicate(sent) }.map(\.continuation)
            state.sentWaiters.removeAll { $0.predicate(sent) }
            return (ready, state.script)
        }
    }

    public func close() async {
        state.withLock { $0.isClosed = true }
        packets.finish()
    }
}
