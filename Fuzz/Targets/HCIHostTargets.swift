import Dispatch
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldTestSupport
import Logging

/// The HCI host (HaraldHCI's `HCIHost`) as a state machine: a host started on an in-memory
/// controller (`FakeController`), then driven by a fuzzer-chosen sequence of controller events,
/// ACL data, L2CAP PDUs, host operations (connect, scan, advertise, disconnect, encrypt, send)
/// and time steps on a manual clock, so timeouts fire without real time passing.
///
/// Input: byte 0 picks the controller's LE features (bit 0 encryption, bit 1 Data Length
/// Extension, bit 2 LE 2M PHY, bit 3 extended advertising) and bit 4 makes the host prefer the
/// legacy commands. Then up to 64 steps, each an action byte (modulo 16) and its arguments, read
/// on demand (missing bytes read as zero). See ``HostStep``.
///
/// What must hold: nothing traps; closing the host ends every operation started (each one
/// returns or throws) and leaves no connection open; everything the host sent is a well-formed
/// command or an ACL packet no longer than the controller's buffer. A run that does not end
/// within the hang bound (`FuzzHangBound`, 10 s while fuzzing) is a hang and traps.
let hciHostTargets: [FuzzTarget] = [
    FuzzTarget("HCIHost.EventSequence", runsTasks: true, { bytes in runHostBounded("HCIHost", bytes, driveHost) }),
    FuzzTarget("L2CAP.Signaling", runsTasks: true, { bytes in runHostBounded("L2CAP signaling", bytes, driveSignaling) }),
]

/// The peer every scripted connection is with.
private let fuzzPeer = BluetoothAddress(value: 0xC0_00_00_00_00_01, kind: .random)!
/// The controller's ACL buffer: the longest ACL packet the host may send.
private let fuzzACLLength: UInt16 = 27

/// Runs `body` on the concurrency pool and waits for it on this (libFuzzer's) thread.
private func runHostBounded(_ what: String, _ bytes: [UInt8], _ body: @escaping @Sendable ([UInt8]) async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body(bytes)
        done.signal()
    }
    if done.wait(timeout: .now() + .seconds(FuzzHangBound.seconds)) == .timedOut {
        fatalError("\(what): no end after \(FuzzHangBound.seconds) s for input \(bytes.hexString)")
    }
}

/// Reads an input byte by byte; past the end every byte is zero.
private struct InputCursor {
    let bytes: [UInt8]
    var index: Int

    var isAtEnd: Bool { index >= bytes.count }

    mutating func next() -> UInt8 {
        defer { index += 1 }
        return index < bytes.count ? bytes[index] : 0
    }

    mutating func word() -> UInt16 { UInt16(next()) | UInt16(next()) << 8 }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = max(index, end) }
        return index < end ? Array(bytes[index..<end]) : []
    }
}

/// How the controller answers commands, chosen by the fuzzer as the run goes.
private enum AnswerMode: UInt8 {
    /// Success with plausible return parameters.
    case standard
    /// A command credit and nothing else: the command never completes.
    case silent
    /// Command Status with Command Disallowed, whatever the command.
    case refused
    /// The standard answer twice.
    case duplicated
}

/// A started host on a fake controller, a manual clock, and the operations started on it.
private final class HostRig: Sendable {
    let controller: FakeController
    let host: HCIHost
    let clock = ManualClock()
    let mode = Locked(AnswerMode.standard)
    let operations = Locked<[Task<Void, Never>]>([])

    init?(features: UInt8) async {
        var leFeatures: UInt64 = 0
        if features & 0x01 != 0 { leFeatures |= 1 << 0 }
        if features & 0x02 != 0 { leFeatures |= 1 << 5 }
        if features & 0x04 != 0 { leFeatures |= 1 << 8 }
        if features & 0x08 != 0 { leFeatures |= 1 << 12 }
        controller = FakeController(aclLength: fuzzACLLength, aclCount: 4, leFeatures: leFeatures)
        var configuration = HCIHost.Configuration()
        configuration.logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
        configuration.randomAddress = BluetoothAddress(value: 0xC0_11_22_33_44_55, kind: .random)
        configuration.preferLegacyCommands = features & 0x10 != 0
        host = HCIHost(transport: controller, clock: clock, configuration: configuration)
        do {
            try await host.start()
        } catch {
            fatalError("HCIHost: set-up against the standard answers failed: \(error)")
        }
        let mode = mode
        // Weak: the controller keeps its script, so a strong capture would keep both forever.
        controller.answer { [weak controller] command in
            guard let controller else { return nil }
            return switch mode.withLock({ $0 }) {
            case .standard: controller.standardAnswer(command)
            case .silent: [ControllerEvents.complete(HCIOpcode(rawValue: 0), [])]
            case .refused: [ControllerEvents.status(command.opcode, HCIStatus(rawValue: 0x0C))]
            case .duplicated: controller.standardAnswer(command) + controller.standardAnswer(command)
            }
        }
    }

    /// Starts an operation on the host; it must end once the host closes.
    func start(_ operation: @escaping @Sendable (HCIHost) async -> Void) {
        let host = host
        let task = Task { await operation(host) }
        operations.withLock { $0.append(task) }
    }

    /// Lets the host's reader and tasks catch up with what was injected (no real time passes).
    func settle() async {
        for _ in 0..<8 { await Task.yield() }
    }

    /// The open connection picked by `selector`, if any.
    func connection(_ selector: UInt8) async -> LEConnection? {
        let open = await host.openConnections.sorted { $0.handle < $1.handle }
        return open.isEmpty ? nil : open[Int(selector) % open.count]
    }

    /// Closes the host, waits for every operation and checks what the host sent.
    func finish(_ input: [UInt8]) async {
        await host.close()
        for operation in operations.withLock({ $0 }) { await operation.value }
        require(await host.openConnections.isEmpty, "HCIHost: connections left open after close for \(input.hexString)")
        for packet in controller.sent {
            switch packet.type {
            case .command:
                require((try? HCICommand(decoding: packet.payload)) != nil, "HCIHost sent a malformed command \(packet.payload.hexString)")
            case .acl:
                guard let acl = try? ACLDataPacket(decoding: packet.payload) else {
                    fatalError("HCIHost sent a malformed ACL packet \(packet.payload.hexString)")
                }
                require(acl.data.count <= Int(fuzzACLLength), "HCIHost sent \(acl.data.count) ACL bytes, buffer \(fuzzACLLength), for \(input.hexString)")
            default:
                fatalError("HCIHost sent a \(packet.type) packet")
            }
        }
    }
}

/// One L2CAP basic frame for `cid` as ACL packets for `handle`: whole, or cut in two.
private func aclPackets(handle: UInt16, cid: UInt16, payload: [UInt8], split: Bool) -> [HCIPacket] {
    let frame = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + payload
    let cut = split ? frame.count / 2 : frame.count
    var packets = [ACLDataPacket(handle: handle, packetBoundary: .firstFlushable, data: Array(frame[..<cut]))]
    if cut < frame.count { packets.append(ACLDataPacket(handle: handle, packetBoundary: .continuing, data: Array(frame[cut...]))) }
    return packets.compactMap { try? HCIPacket(type: .acl, payload: $0.encodedBytes()) }
}

/// The actions of one step (the action byte modulo 16).
private enum HostStep: UInt8 {
    case rawEvent, leMetaEvent, rawACL, connectionComplete, disconnectionComplete, completedPackets, l2capPDU
    case connect, scan, stopScanning, sendATT, disconnect, advertise, linkOperation, advanceClock, answerMode
}

@Sendable private func driveHost(_ bytes: [UInt8]) async {
    guard let features = bytes.first, let rig = await HostRig(features: features) else { return }
    var input = InputCursor(bytes: bytes, index: 1)
    var steps = 0
    while !input.isAtEnd && steps < 64 {
        steps += 1
        guard let step = HostStep(rawValue: input.next() % 16) else { continue }
        switch step {
        case .rawEvent:
            let code = input.next()
            rig.controller.inject(ControllerEvents.event(code, input.take(Int(input.next() % 64))))
        case .leMetaEvent:
            let subevent = input.next() % 0x30
            rig.controller.inject(ControllerEvents.event(0x3E, [subevent] + input.take(Int(input.next() % 64))))
        case .rawACL:
            rig.controller.inject(HCIPacket(type: .acl, payload: input.take(Int(input.next() % 64))))
        case .connectionComplete:
            let handle = UInt16(0x40 + input.next() % 4)
            let status = input.next()
            rig.controller.inject(
                ControllerEvents.connectionComplete(handle: handle, peer: fuzzPeer, status: HCIStatus(rawValue: status % 8 == 0 ? status : 0)))
        case .disconnectionComplete:
            let handle = UInt16(0x40 + input.next() % 4)
            rig.controller.inject(ControllerEvents.disconnectionComplete(handle: handle, reason: HCIStatus(rawValue: input.next())))
        case .completedPackets:
            let handle = UInt16(0x40 + input.next() % 4)
            rig.controller.inject(ControllerEvents.completedPackets(handle: handle, count: UInt16(input.next() % 8)))
        case .l2capPDU:
            let handle = UInt16(0x40 + input.next() % 4)
            let choice = input.next()
            let cid: UInt16 = [0x0004, 0x0005, 0x0006, 0x0040][Int(choice % 4)]
            let payload = input.take(Int(input.next() % 48))
            for packet in aclPackets(handle: handle, cid: cid, payload: payload, split: choice & 0x80 != 0) { rig.controller.inject(packet) }
        case .connect:
            let seconds = Int(input.next() % 20) + 1
            rig.start { host in _ = try? await host.connect(to: fuzzPeer, timeout: .seconds(seconds)) }
        case .scan:
            let count = Int(input.next() % 4)
            rig.start { host in
                guard let advertisements = try? await host.scan() else { return }
                for await advertisement in advertisements.prefix(count) { blackHole(advertisement) }
                await host.stopScanning()
            }
        case .stopScanning:
            rig.start { host in await host.stopScanning() }
        case .sendATT:
            let selector = input.next()
            let sdu = input.take(Int(input.next() % 80))
            if let connection = await rig.connection(selector) {
                rig.start { _ in try? await connection.att.send(sdu) }
            }
        case .disconnect:
            let selector = input.next()
            if let connection = await rig.connection(selector) {
                rig.start { _ in _ = try? await connection.disconnect() }
            }
        case .advertise:
            let choice = input.next()
            rig.start { host in
                if choice & 1 == 0 {
                    _ = try? await host.startAdvertising(LegacyAdvertising(data: AdvertisingData(parsing: [0x02, 0x01, 0x06])))
                } else {
                    _ = try? await host.stopAdvertising()
                }
            }
        case .linkOperation:
            let selector = input.next()
            guard let connection = await rig.connection(selector) else { continue }
            switch selector >> 6 {
            case 0: rig.start { _ in _ = try? await connection.encrypt(with: SecretKey128(littleEndianBytes: Array(repeating: 0x11, count: 16))!) }
            case 1: rig.start { _ in _ = try? await connection.readRSSI() }
            case 2: rig.start { _ in _ = try? await connection.setDataLength() }
            default:
                rig.start { _ in
                    _ = try? await connection.requestConnectionParameters(
                        LEConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400), timeout: .seconds(5))
                }
            }
        case .advanceClock:
            await rig.settle()
            rig.clock.advance(by: .milliseconds(Int(input.next()) * 100))
        case .answerMode:
            let mode = AnswerMode(rawValue: input.next() % 4) ?? .standard
            rig.mode.withLock { $0 = mode }
        }
        await rig.settle()
    }
    await rig.finish(bytes)
}

/// L2CAP signaling (CID 0x0005) on a connected host: the input is the peer's signaling PDUs,
/// each a header byte (bit 7: the frame is cut in two ACL packets; bits 0-5: the PDU's length)
/// and the PDU. The host answers requests and nothing else: every reply is a Command Reject, a
/// Connection Parameter Update Response, or the refusal of a credit-based channel request (LE
/// Credit Based or Credit Based Connection Response, Credit Based Reconfigure Response), well-formed,
/// for an identifier of a request of the kind it answers, and there are no more replies than PDUs.
@Sendable private func driveSignaling(_ bytes: [UInt8]) async {
    guard let rig = await HostRig(features: 0) else { return }
    rig.start { host in _ = try? await host.connect(to: fuzzPeer, timeout: nil) }
    await rig.controller.waitForCommand(.leCreateConnection)
    rig.controller.inject(ControllerEvents.connectionComplete(handle: 0x40, peer: fuzzPeer))
    while await rig.host.openConnections.isEmpty { await Task.yield() }
    var input = InputCursor(bytes: bytes, index: 0)
    var answerable: Set<UInt8> = []
    /// Request codes sent with each identifier.
    var asked: [UInt8: Set<UInt8>] = [:]
    var sentPDUs = 0
    let responses: Set<UInt8> = [0x01, 0x03, 0x05, 0x07, 0x0B, 0x13, 0x15, 0x16, 0x18, 0x1A]
    while !input.isAtEnd {
        let header = input.next()
        let pdu = input.take(Int(header & 0x3F))
        sentPDUs += 1
        if pdu.count >= 4 && !responses.contains(pdu[0]) {
            answerable.insert(pdu[1])
            asked[pdu[1], default: []].insert(pdu[0])
        }
        for packet in aclPackets(handle: 0x40, cid: 0x0005, payload: pdu, split: header & 0x80 != 0) { rig.controller.inject(packet) }
        rig.controller.inject(ControllerEvents.completedPackets(handle: 0x40, count: 4))
        await rig.settle()
    }
    await rig.settle()
    await rig.finish(bytes)
    var reassembler = L2CAPReassembler()
    var replies = 0
    for acl in rig.controller.sentACL {
        guard let frame = reassembler.add(acl), frame.cid == 0x0005 else { continue }
        replies += 1
        let reply = frame.payload
        require(reply.count >= 4, "L2CAP signaling: short reply \(reply.hexString) for \(bytes.hexString)")
        require(Int(reply[2]) | Int(reply[3]) << 8 == reply.count - 4, "L2CAP signaling: reply \(reply.hexString) has a wrong length")
        require(answerable.contains(reply[1]), "L2CAP signaling: reply \(reply.hexString) answers nothing the peer asked in \(bytes.hexString)")
        let codes = asked[reply[1]] ?? []
        let result = reply.count >= 2 ? Int(reply[reply.count - 2]) | Int(reply[reply.count - 1]) << 8 : -1
        switch reply[0] {
        case 0x01:
            // Not understood (6 bytes), or invalid CID naming a Disconnection Request's two CIDs (10).
            require(reply.count == 6 || (reply.count == 10 && codes.contains(0x06)), "L2CAP signaling: Command Reject \(reply.hexString)")
        case 0x13:
            require(reply.count == 6 && codes.contains(0x12), "L2CAP signaling: unasked parameter response \(reply.hexString)")
        case 0x15:
            require(reply.count == 14 && codes.contains(0x14) && result == 0x0002, "L2CAP signaling: LE credit-based response \(reply.hexString)")
        case 0x18:
            let channels = (reply.count - 12) / 2
            require(
                codes.contains(0x17) && reply.count >= 14 && reply.count % 2 == 0 && channels <= 5
                    && Int(reply[10]) | Int(reply[11]) << 8 == 0x0002,
                "L2CAP signaling: credit-based response \(reply.hexString)")
        case 0x1A:
            // No channel is open: invalid Destination CIDs, or unacceptable parameters for an MTU or
            // MPS under 64 (checked first).
            require(
                reply.count == 6 && codes.contains(0x19) && (result == 0x0003 || result == 0x0004),
                "L2CAP signaling: reconfigure response \(reply.hexString)")
        default: fatalError("L2CAP signaling: the host sent \(reply.hexString) for \(bytes.hexString)")
        }
    }
    require(replies <= sentPDUs, "L2CAP signaling: \(replies) replies to \(sentPDUs) PDUs in \(bytes.hexString)")
}
