import Foundation
import HaraldCodec

@testable import HaraldHCI
import HaraldCore

/// An in-memory controller for host tests: records what the host sends and answers commands
/// through a script the test controls.
final class FakeController: HCITransport, @unchecked Sendable {
    // Safety of @unchecked Sendable: `sent`, `responder`, `isClosed` and `sentWaiters` are only
    // touched while holding `lock`; the stream continuation is Sendable.
    private let lock = NSLock()
    private var sentPackets: [HCIPacket] = []
    private var responder: @Sendable (HCICommand) -> [HCIPacket]?
    private var isClosed = false
    private var sendFailure: (error: HCITransportError, matches: @Sendable (HCIPacket) -> Bool)?
    private var sentWaiters: [(predicate: @Sendable ([HCIPacket]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    let packets: AsyncThrowingStream<HCIPacket, any Error>
    private let continuation: AsyncThrowingStream<HCIPacket, any Error>.Continuation

    /// ACL buffer the fake reports in LE Read Buffer Size.
    let aclLength: UInt16
    let aclCount: UInt8
    let leFeatures: UInt64

    init(aclLength: UInt16 = 27, aclCount: UInt8 = 4, leFeatures: UInt64 = 0) {
        self.aclLength = aclLength
        self.aclCount = aclCount
        self.leFeatures = leFeatures
        (packets, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        responder = { _ in nil }
        responder = { [unowned self] command in self.standardAnswer(command) }
    }

    /// Replaces the command script: return the packets to answer with, or nil to stay silent.
    func answer(with script: @escaping @Sendable (HCICommand) -> [HCIPacket]?) {
        lock.lock()
        responder = script
        lock.unlock()
    }

    /// Makes every later send of a packet that `matches` fail with `error`, as a socket write
    /// would; the packet is not recorded.
    func failSends(with error: HCITransportError, where matches: @escaping @Sendable (HCIPacket) -> Bool) {
        lock.lock()
        sendFailure = (error, matches)
        lock.unlock()
    }

    /// Answers every command with success and plausible return parameters.
    func standardAnswer(_ command: HCICommand) -> [HCIPacket] {
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

    static func complete(_ opcode: HCIOpcode, _ returnParameters: [UInt8], credits: UInt8 = 1) -> HCIPacket {
        event(0x0E, [credits, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8)] + returnParameters)
    }

    static func status(_ opcode: HCIOpcode, _ status: HCIStatus, credits: UInt8 = 1) -> HCIPacket {
        event(0x0F, [status.rawValue, credits, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8)])
    }

    static func event(_ code: UInt8, _ parameters: [UInt8]) -> HCIPacket {
        HCIPacket(type: .event, payload: [code, UInt8(parameters.count)] + parameters)
    }

    static func connectionComplete(handle: UInt16, peer: BluetoothAddress, status: HCIStatus = .success) -> HCIPacket {
        event(0x3E, [0x01, status.rawValue, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, peer.kind.rawValue]
            + peer.littleEndianBytes + [0x18, 0x00, 0x00, 0x00, 0x48, 0x00, 0x00])
    }

    static func completedPackets(handle: UInt16, count: UInt16) -> HCIPacket {
        event(0x13, [0x01, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(count & 0xFF), UInt8(count >> 8)])
    }

    static func disconnectionComplete(handle: UInt16, reason: HCIStatus) -> HCIPacket {
        event(0x05, [0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), reason.rawValue])
    }

    /// Delivers a packet to the host.
    func inject(_ packet: HCIPacket) { continuation.yield(packet) }

    /// Ends the link from the controller side.
    func fail(_ error: HCITransportError) { continuation.finish(throwing: error) }

    var sent: [HCIPacket] {
        lock.lock()
        defer { lock.unlock() }
        return sentPackets
    }

    /// Commands the host has sent, in order.
    var sentCommands: [HCICommand] {
        sent.filter { $0.type == .command }.compactMap { try? HCICommand(decoding: $0.payload) }
    }

    /// ACL packets the host has sent, in order.
    var sentACL: [ACLDataPacket] {
        sent.filter { $0.type == .acl }.compactMap { try? ACLDataPacket(decoding: $0.payload) }
    }

    /// Waits until what the host sent satisfies `predicate`.
    func waitUntilSent(_ predicate: @escaping @Sendable ([HCIPacket]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if predicate(sentPackets) {
                lock.unlock()
                continuation.resume()
                return
            }
            sentWaiters.append((predicate, continuation))
            lock.unlock()
        }
    }

    func waitForCommand(_ opcode: HCIOpcode, count: Int = 1) async {
        await waitUntilSent { packets in
            packets.filter { $0.type == .command && (try? HCICommand(decoding: $0.payload))?.opcode == opcode }.count >= count
        }
    }

    func waitForACL(count: Int) async {
        await waitUntilSent { packets in packets.filter { $0.type == .acl }.count >= count }
    }

    func send(_ packet: HCIPacket) async throws(HCITransportError) {
        let (ready, script) = try record(packet)
        for waiter in ready { waiter.resume() }
        if packet.type == .command, let command = try? HCICommand(decoding: packet.payload), let replies = script(command) {
            for reply in replies { continuation.yield(reply) }
        }
    }

    private func record(_ packet: HCIPacket) throws(HCITransportError) -> ([CheckedContinuation<Void, Never>], @Sendable (HCICommand) -> [HCIPacket]?) {
        lock.lock()
        defer { lock.unlock() }
        guard !isClosed else { throw .closed }
        if let sendFailure, sendFailure.matches(packet) { throw sendFailure.error }
        sentPackets.append(packet)
        let ready = sentWaiters.filter { $0.predicate(sentPackets) }.map(\.continuation)
        sentWaiters.removeAll { $0.predicate(sentPackets) }
        return (ready, responder)
    }

    func close() async {
        markClosed()
        continuation.finish()
    }

    private func markClosed() {
        lock.lock()
        isClosed = true
        lock.unlock()
    }
}
