import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldL2CAP
import HaraldSMP

/// An LE controller in the test process, with peripherals (``VirtualPeer``) within range: the
/// HCI host stack runs against it in plain `swift test`, with no Bumble and no sockets.
///
/// It answers what ``HCIHost`` sends (Reset, the reads of set-up, the legacy scan and connect
/// commands, Disconnect, Data Length, PHY and connection updates), reports each peer's
/// advertising when scanning starts, completes LE Create Connection at once for a peer it knows
/// (and never for one it does not, until LE Create Connection Cancel), and carries ACL data
/// both ways: the host's fragments are counted back with Number Of Completed Packets and
/// reassembled into L2CAP PDUs, the ATT channel's (CID 0x0004) go to the peer's GATT server, and
/// the server's PDUs come back fragmented to ``Configuration/peripheralDataLength``.
///
/// It offers no extended advertising, no encryption and no L2CAP signaling of its own.
public final class VirtualController: HCITransport {
    public struct Configuration: Sendable {
        /// The controller's public address (Read BD_ADDR).
        public var publicAddress = BluetoothAddress("00:1B:DC:00:00:01", kind: .public)!
        /// LE Read Buffer Size: the largest ACL fragment the host may send, and how many the
        /// controller holds.
        public var aclDataLength: UInt16 = 27
        public var aclPacketCount: UInt8 = 8
        /// The largest ACL fragment sent to the host.
        public var peripheralDataLength = 27
        /// LE features reported (bit 5 Data Length Extension, bit 8 LE 2M PHY are honoured;
        /// never bit 12, extended advertising).
        public var leFeatures: UInt64 = 0

        public init() {}
    }

    private struct Link {
        let peer: BluetoothAddress
        let bearer: VirtualLinkBearer
        var serverConnection: GATTConnectionID?
        /// The peer's Security Manager on this link (an ``SMPResponderService``, from the first
        /// SMP PDU on): where SMP PDUs go.
        var securityManager: AsyncStream<[UInt8]>.Continuation?
        /// The key the peer's pairing waits for the central to encrypt with, and the wait.
        var awaitedKey: SecretKey128?
        var encryptionWaiter: CheckedContinuation<Void, any Error>?
        var reassembler = L2CAPReassembler()
        /// The peer's connection-oriented channels on this link.
        var channels = CreditBasedChannels()
        var channelRefusal: CreditBasedConnectionResult?
        var echoes = true
    }

    private struct State {
        var isClosed = false
        var activeScan = false
        /// An LE Create Connection for a peer that is not here, waiting for its cancel.
        var pendingConnection: BluetoothAddress?
        var links: [UInt16: Link] = [:]
        var nextHandle: UInt16 = 0x0040
        /// The host's random address (LE Set Random Address), the initiator's address in pairing.
        var hostAddress: BluetoothAddress?
        /// Pairings the peers started (Pairing Requests they answered).
        var pairingsStarted = 0
        var securityManagerPDUsReceived = 0
        /// Long Term Keys peers learned by pairing with the central, by peer.
        var pairedKeys: [BluetoothAddress: (key: SecretKey128, authenticated: Bool)] = [:]
        /// SDUs the peers received on their channels, in order.
        var channelSDUs: [[UInt8]] = []
        /// Every channel event of the peers' engines (for tests of what the peer saw).
        var channelEvents: [CreditBasedChannels.Event] = []
    }

    public let configuration: Configuration
    /// Unbounded, as a host reads what the controller sends.
    public let packets = HCIPacketInbox(capacity: .max)
    private let peers: [VirtualPeer]
    /// Links and scan state. Packets whose order matters against a link's state (its ACL data,
    /// its Disconnection Complete) are yielded to the host with this lock held, so no ACL data
    /// of a link ever follows its Disconnection Complete.
    private let state = Locked(State())

    public init(peers: [VirtualPeer], configuration: Configuration = Configuration()) {
        self.peers = peers
        self.configuration = configuration
    }

    // MARK: Test controls

    /// Links open now.
    public var linkCount: Int { state.withLock { $0.links.count } }

    /// SDUs the peers received on their connection-oriented channels, in order.
    public var channelSDUs: [[UInt8]] { state.withLock { $0.channelSDUs } }

    /// What the peers' channel engines reported (opened, closed, refused …), in order.
    public var channelEvents: [CreditBasedChannels.Event] { state.withLock { $0.channelEvents } }

    /// The peer on link `handle` sends `sdu` on its channel `cid` (its own CID), as far as its
    /// credits allow.
    public func sendOnPeerChannel(_ sdu: [UInt8], cid: UInt16, handle: UInt16) {
        state.withLock { state in
            guard var link = state.links[handle], let events = try? link.channels.send(sdu, on: cid, id: 0) else { return }
            state.links[handle] = link
            carryPeerChannelEvents(events, handle: handle, state: &state)
        }
    }

    /// The peer on link `handle` sends raw bytes on the LE signaling channel or any other
    /// (a hostile peer).
    public func sendRawL2CAP(_ sdu: [UInt8], cid: UInt16, handle: UInt16) {
        state.withLock { state in yieldL2CAP(sdu, cid: cid, handle: handle, state: &state) }
    }

    private func yieldL2CAP(_ sdu: [UInt8], cid: UInt16, handle: UInt16, state: inout State) {
        guard !state.isClosed, state.links[handle] != nil else { return }
        for var fragment in fragmentL2CAP(cid: cid, sdu: sdu, handle: handle, maximumDataLength: configuration.peripheralDataLength) {
            if fragment.packetBoundary == .firstNonFlushable { fragment.packetBoundary = .firstFlushable }
            packets.yield(fragment.packet)
        }
    }

    /// Carries out what a peer's channel engine returned: its PDUs to the host, requests answered,
    /// SDUs recorded (echoed when the peer echoes) and read at once.
    private func carryPeerChannelEvents(_ events: [CreditBasedChannels.Event], handle: UInt16, state: inout State) {
        var queue = events[...]
        while let event = queue.popFirst() {
            state.channelEvents.append(event)
            guard var link = state.links[handle] else { return }
            switch event {
            case let .signal(command):
                yieldL2CAP(command.pdu, cid: L2CAPFixedChannel.leSignaling, handle: handle, state: &state)
            case let .kFrame(destination, payload):
                yieldL2CAP(payload, cid: destination, handle: handle, state: &state)
            case let .incomingRequest(request):
                queue += link.channelRefusal.map { link.channels.refuse(request, result: $0) } ?? link.channels.accept(request)
            case let .received(cid, sdu):
                state.channelSDUs.append(sdu)
                if link.echoes, let echoed = try? link.channels.send(sdu, on: cid, id: 0) { queue += echoed }
                queue += link.channels.consumed(on: cid)
            default:
                break
            }
            state.links[handle] = link
        }
    }
    /// The peripheral at `address` ends every link to it; the host gets Disconnection Complete
    /// with `reason`.
    public func disconnectFromPeripheral(_ address: BluetoothAddress, reason: HCIStatus = .remoteUserTerminatedConnection) {
        let handles = state.withLock { $0.links.filter { $0.value.peer == address }.map(\.key) }
        for handle in handles { endLink(handle: handle, reason: reason) }
    }

    // MARK: HCITransport

    public func send(_ packet: HCIPacket) async throws(HCITransportError) {
        guard !state.withLock({ $0.isClosed }) else { throw .closed }
        switch packet.type {
        case .command:
            let command: HCICommand
            do { command = try HCICommand(decoding: packet.payload) } catch { return }  // garbled: a controller ignores it
            await execute(command)
        case .acl:
            let fragment: ACLDataPacket
            do { fragment = try ACLDataPacket(decoding: packet.payload) } catch { return }
            receive(fragment)
        default:
            break
        }
    }

    /// Ends the link to the host with `error`, as a controller whose socket broke.
    public func fail(_ error: HCITransportError) { packets.finish(throwing: error) }

    public func close() async {
        let links = state.withLock { state in
            state.isClosed = true
            defer { state.links = [:] }
            return state.links.values.map(\.bearer)
        }
        for bearer in links { bearer.end(.linkLost(code: nil)) }
        packets.finish()
    }

    // MARK: Links

    /// A PDU from a peer's GATT server to the central, as ACL data on CID 0x0004.
    func sendFromPeripheral(_ pdu: [UInt8], handle: UInt16) throws(ATTBearerError) {
        let fragments = fragmentL2CAP(
            cid: L2CAPFixedChannel.attributeProtocol, sdu: pdu, handle: handle, maximumDataLength: configuration.peripheralDataLength)
        try state.withLock { (state: inout State) throws(ATTBearerError) in
            guard !state.isClosed, state.links[handle] != nil else { throw .closed }
            for var fragment in fragments {
                // A controller marks the first fragment it sends up as "first, flushable".
                if fragment.packetBoundary == .firstNonFlushable { fragment.packetBoundary = .firstFlushable }
                packets.yield(fragment.packet)
            }
        }
    }

    /// Ends a link: the host gets Disconnection Complete with `reason`, the peer's server a
    /// closed bearer. Does nothing for a link that is gone.
    func endLink(handle: UInt16, reason: HCIStatus, peerSees closeReason: ATTCloseReason = .closedLocally) {
        let link: Link? = state.withLock { state in
            guard let link = state.links.removeValue(forKey: handle) else { return nil }
            packets.yield(ControllerEvents.disconnectionComplete(handle: handle, reason: reason))
            return link
        }
        // A pairing under way on the link ends with it.
        link?.securityManager?.finish()
        link?.encryptionWaiter?.resume(throwing: PairingError.linkLost("the link ended"))
        link?.bearer.end(closeReason)
    }

    private func receive(_ fragment: ACLDataPacket) {
        let delivery: (VirtualLinkBearer, L2CAPReassembler.PDU?)? = state.withLock { state in
            guard var link = state.links[fragment.handle] else { return nil }
            let pdu = link.reassembler.add(fragment)
            state.links[fragment.handle] = link
            return (link.bearer, pdu)
        }
        // The buffer is free at once, as on Bumble's controllers.
        packets.yield(ControllerEvents.completedPackets(handle: fragment.handle, count: 1))
        guard let (bearer, pdu) = delivery, let pdu else { return }
        switch pdu.cid {
        case L2CAPFixedChannel.attributeProtocol:
            bearer.deliver(pdu.payload)
        case L2CAPFixedChannel.securityManager:
            receiveSecurityManagerPDU(pdu.payload, handle: fragment.handle)
        case L2CAPFixedChannel.leSignaling:
            state.withLock { state in
                guard var link = state.links[fragment.handle], let command = try? SignalingCommand(pdu: pdu.payload),
                    let events = link.channels.receive(command)
                else { return }
                state.links[fragment.handle] = link
                carryPeerChannelEvents(events, handle: fragment.handle, state: &state)
            }
        case CreditBasedChannels.dynamicCIDs:
            state.withLock { state in
                guard var link = state.links[fragment.handle] else { return }
                let events = link.channels.receiveKFrame(cid: pdu.cid, payload: pdu.payload)
                state.links[fragment.handle] = link
                carryPeerChannelEvents(events, handle: fragment.handle, state: &state)
            }
        default:
            break
        }
    }

    /// An SMP PDU from the central: to the peer's Security Manager (started on the first one), or,
    /// for a peer without ``VirtualPeer/pairing``, a Pairing Request refused with Pairing Not
    /// Supported.
    private func receiveSecurityManagerPDU(_ pdu: [UInt8], handle: UInt16) {
        enum Next { case deliver(AsyncStream<[UInt8]>.Continuation), start(VirtualPeer, BluetoothAddress), refuse, ignore }
        let next: Next = state.withLock { state in
            state.securityManagerPDUsReceived += 1
            guard let link = state.links[handle] else { return .ignore }
            if peers.first(where: { $0.address == link.peer })?.ignoresSecurityManager == true { return .ignore }
            if let channel = link.securityManager { return .deliver(channel) }
            guard let peer = peers.first(where: { $0.address == link.peer }), peer.pairing != nil, let host = state.hostAddress else {
                return pdu.first == 0x01 ? .refuse : .ignore
            }
            return .start(peer, host)
        }
        switch next {
        case .deliver(let channel): channel.yield(pdu)
        case .refuse: sendSecurityManagerPDU([0x05, 0x05], handle: handle)
        case .ignore: break
        case let .start(peer, host): startSecurityManager(peer: peer, host: host, handle: handle)?.yield(pdu)
        }
    }

    /// Starts the peer's Security Manager on link `handle` (``SMPResponderService``: a responder
    /// per Pairing Request, nothing more after an SMP timeout); the keys of a bonding pairing are
    /// remembered for the peer's later LE Long Term Key Requests. Returns its input.
    private func startSecurityManager(peer: VirtualPeer, host: BluetoothAddress, handle: UInt16) -> AsyncStream<[UInt8]>.Continuation? {
        guard let configuration = peer.pairing else { return nil }
        let (incoming, channel) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(16))
        let installed = state.withLock { state -> Bool in
            guard state.links[handle] != nil else { return false }
            state.links[handle]?.securityManager = channel
            return true
        }
        guard installed else { return nil }
        let service = SMPResponderService(
            configuration: configuration, agent: AutomaticPairingAgent(), addresses: PairingAddresses(initiator: host, responder: peer.address),
            localKeys: SMPResponderLocalKeys(), send: { [weak self] pdu in self?.sendSecurityManagerPDU(pdu, handle: handle) }
        ) { [weak self] key, _, _ in
            guard let self else { throw PairingError.linkLost("controller gone") }
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                self.state.withLock { state in
                    state.links[handle]?.awaitedKey = key
                    state.links[handle]?.encryptionWaiter = waiter
                }
            }
        }
        let state = self.state
        Task {
            await service.serve(incoming, onStart: { state.withLock { $0.pairingsStarted += 1 } }) { result in
                guard case .success(let outcome) = result, outcome.isBonding, let key = outcome.longTermKey ?? outcome.localLongTermKey else { return }
                state.withLock { $0.pairedKeys[peer.address] = (key.key, key.isAuthenticated) }
            }
        }
        return channel
    }

    /// How many pairings the peers have started with the central.
    public var pairingsStarted: Int { state.withLock { $0.pairingsStarted } }

    /// How many SMP PDUs the central sent to the peers.
    public var securityManagerPDUsReceived: Int { state.withLock { $0.securityManagerPDUsReceived } }

    /// An SMP PDU from a peer to the central, on CID 0x0006.
    private func sendSecurityManagerPDU(_ pdu: [UInt8], handle: UInt16) {
        let fragments = fragmentL2CAP(
            cid: L2CAPFixedChannel.securityManager, sdu: pdu, handle: handle, maximumDataLength: configuration.peripheralDataLength)
        state.withLock { state in
            guard !state.isClosed, state.links[handle] != nil else { return }
            for var fragment in fragments {
                if fragment.packetBoundary == .firstNonFlushable { fragment.packetBoundary = .firstFlushable }
                packets.yield(fragment.packet)
            }
        }
    }

    private func openLink(to peer: VirtualPeer) async {
        let handle = state.withLock { state in
            defer { state.nextHandle += 1 }
            return state.nextHandle
        }
        let bearer = VirtualLinkBearer(handle: handle, controller: self)
        // A peer holding a key for the central tells it so: Insufficient Encryption, not Authentication.
        let paired = state.withLock { $0.pairedKeys[peer.address] }
        let bonded: SecurityLevel? =
            if let paired { paired.authenticated ? .authenticated : .encrypted } else if peer.longTermKey != nil {
                peer.longTermKeyIsAuthenticated ? .authenticated : .encrypted
            } else { nil }
        let serverConnection = await peer.server.attach(bearer, security: GATTSecurity(bondedLevel: bonded))
        state.withLock { state in
            var link = Link(peer: peer.address, bearer: bearer, serverConnection: serverConnection)
            for server in peer.channelServers { link.channels.register(server) }
            link.channelRefusal = peer.channelRefusal
            link.echoes = peer.echoesChannelSDUs
            state.links[handle] = link
            packets.yield(ControllerEvents.connectionComplete(handle: handle, peer: peer.address))
        }
        if let authReq = peer.securityRequest, let request = try? SMPSecurityRequest(authReq: authReq).encodedBytes() {
            sendSecurityManagerPDU(request, handle: handle)
        }
    }

    // MARK: Commands

    private func answer(_ packets: HCIPacket...) {
        for packet in packets { self.packets.yield(packet) }
    }

    private func complete(_ command: HCICommand, _ returnParameters: [UInt8] = [HCIStatus.success.rawValue]) {
        answer(ControllerEvents.complete(command.opcode, returnParameters))
    }

    private func execute(_ command: HCICommand) async {
        let parameters = command.parameters
        func word(_ offset: Int) -> UInt16 {
            parameters.count >= offset + 2 ? UInt16(parameters[offset]) | UInt16(parameters[offset + 1]) << 8 : 0
        }
        switch command.opcode {
        case .reset:
            let bearers = state.withLock { state in
                defer { state = State(nextHandle: state.nextHandle) }
                return state.links.values.map(\.bearer)
            }
            for bearer in bearers { bearer.end(.linkLost(code: nil)) }
            complete(command)
        case .readLocalSupportedCommands:
            complete(command, [0x00] + [UInt8](repeating: 0, count: 64))
        case .readLocalSupportedFeatures:
            complete(command, [0x00] + [UInt8](repeating: 0, count: 8))
        case .readBDADDR:
            complete(command, [0x00] + configuration.publicAddress.littleEndianBytes)
        case .leReadLocalSupportedFeatures:
            complete(command, [0x00] + (0..<8).map { UInt8(truncatingIfNeeded: configuration.leFeatures >> (8 * $0)) })
        case .leReadBufferSize:
            complete(command, [0x00] + ControllerEvents.le16(configuration.aclDataLength) + [configuration.aclPacketCount])
        case .leReadMaximumDataLength:
            complete(command, [0x00] + [251, 2120, 251, 2120].flatMap { ControllerEvents.le16($0) })
        case .leSetScanParameters:
            state.withLock { $0.activeScan = parameters.first == 1 }
            complete(command)
        case .leSetScanEnable:
            complete(command)
            if parameters.first == 1 { reportAdvertising() }
        case .leCreateConnection:
            await createConnection(command)
        case .leCreateConnectionCancel:
            let pending = state.withLock { state in
                defer { state.pendingConnection = nil }
                return state.pendingConnection
            }
            guard let pending else { return complete(command, [HCIStatus.commandDisallowed.rawValue]) }
            complete(command)
            answer(ControllerEvents.connectionComplete(handle: 0, peer: pending, status: .unknownConnectionIdentifier))
        case .disconnect:
            let handle = word(0)
            guard state.withLock({ $0.links[handle] != nil }) else {
                return answer(ControllerEvents.status(command.opcode, .unknownConnectionIdentifier))
            }
            answer(ControllerEvents.status(command.opcode, .success))
            // The central ended it: the peripheral hears Remote User Terminated Connection.
            endLink(handle: handle, reason: .connectionTerminatedByLocalHost, peerSees: .closedByPeer)
        case .leSetDataLength:
            let handle = word(0)
            complete(command, [0x00] + ControllerEvents.le16(handle))
            if linkExists(handle) { answer(ControllerEvents.dataLengthChange(handle: handle, octets: min(word(2), 251), time: word(4))) }
        case .leSetPHY:
            let handle = word(0)
            answer(ControllerEvents.status(command.opcode, .success))
            let phy: UInt8 = parameters.count > 3 && parameters[3] & 0x02 != 0 ? 2 : 1
            if linkExists(handle) { answer(ControllerEvents.phyUpdateComplete(handle: handle, txPHY: phy, rxPHY: phy)) }
        case .leConnectionUpdate:
            let handle = word(0)
            answer(ControllerEvents.status(command.opcode, .success))
            if linkExists(handle) {
                answer(ControllerEvents.connectionUpdateComplete(handle: handle, interval: word(4), latency: word(6), supervisionTimeout: word(8)))
            }
        case .leEnableEncryption:
            let handle = word(0)
            let link = state.withLock { $0.links[handle] }
            guard let link, let peer = peers.first(where: { $0.address == link.peer }) else {
                return answer(ControllerEvents.status(command.opcode, .unknownConnectionIdentifier))
            }
            answer(ControllerEvents.status(command.opcode, .success))
            let offered = parameters.count >= 28 ? Array(parameters[12..<28]) : []
            // A pairing under way waits for the central to encrypt with its new key.
            let pairingWait: CheckedContinuation<Void, any Error>? = state.withLock { state in
                guard let awaited = state.links[handle]?.awaitedKey, awaited.withUnsafeKeyBytes({ $0 == offered }) else { return nil }
                defer {
                    state.links[handle]?.awaitedKey = nil
                    state.links[handle]?.encryptionWaiter = nil
                }
                return state.links[handle]?.encryptionWaiter
            }
            if let pairingWait {
                if let serverConnection = link.serverConnection {
                    await peer.server.setSecurity(GATTSecurity(isEncrypted: true, isAuthenticated: false, bondedLevel: .encrypted), for: serverConnection)
                }
                answer(ControllerEvents.event(0x59, [0x00] + ControllerEvents.le16(handle) + [0x01, 0x10]))
                pairingWait.resume()
                return
            }
            let paired = state.withLock { $0.pairedKeys[peer.address] }
            guard let known = paired?.key ?? peer.longTermKey else {
                // The peer answers its LTK request negatively: encryption fails, the link stays.
                return answer(ControllerEvents.event(0x08, [HCIStatus.pinOrKeyMissing.rawValue] + ControllerEvents.le16(handle) + [0x00]))
            }
            guard known.withUnsafeKeyBytes({ $0 == offered }) else {
                return endLink(handle: handle, reason: .connectionTerminatedDueToMICFailure, peerSees: .linkLost(code: 0x3D))
            }
            if let serverConnection = link.serverConnection {
                let level: SecurityLevel = peer.longTermKeyIsAuthenticated ? .authenticated : .encrypted
                await peer.server.setSecurity(
                    GATTSecurity(isEncrypted: true, isAuthenticated: peer.longTermKeyIsAuthenticated, bondedLevel: level), for: serverConnection)
            }
            answer(ControllerEvents.event(0x59, [0x00] + ControllerEvents.le16(handle) + [0x01, 0x10]))
        case .readRSSI:
            let handle = word(0)
            let peer = state.withLock { $0.links[handle]?.peer }
            guard let peer, let heard = peers.first(where: { $0.address == peer }) else {
                return complete(command, [HCIStatus.unknownConnectionIdentifier.rawValue] + ControllerEvents.le16(handle) + [0])
            }
            complete(command, [0x00] + ControllerEvents.le16(handle) + [UInt8(bitPattern: heard.rssi)])
        case .leReadRemoteFeatures:
            let handle = word(0)
            answer(ControllerEvents.status(command.opcode, .success))
            if linkExists(handle) { answer(ControllerEvents.remoteFeaturesComplete(handle: handle, features: 0)) }
        case .leSetRandomAddress:
            if parameters.count == 6, let address = BluetoothAddress(bytes: parameters.reversed(), kind: .random) {
                state.withLock { $0.hostAddress = address }
            }
            complete(command)
        case .setEventMask, .leSetEventMask, .leWriteSuggestedDefaultDataLength:
            complete(command)
        default:
            complete(command, [HCIStatus.unknownCommand.rawValue])
        }
    }

    private func linkExists(_ handle: UInt16) -> Bool { state.withLock { $0.links[handle] != nil } }

    private func reportAdvertising() {
        let active = state.withLock { $0.activeScan }
        for peer in peers {
            answer(ControllerEvents.advertisingReport(eventType: 0x00, address: peer.address, data: peer.advertisingData, rssi: peer.rssi))
            if active, !peer.scanResponseData.isEmpty {
                answer(ControllerEvents.advertisingReport(eventType: 0x04, address: peer.address, data: peer.scanResponseData, rssi: peer.rssi))
            }
        }
    }

    /// LE Create Connection: `[scan interval u16][scan window u16][filter policy][peer address
    /// type][peer address ×6]…`.
    private func createConnection(_ command: HCICommand) async {
        let parameters = command.parameters
        guard parameters.count >= 12,
            let address = BluetoothAddress(bytes: parameters[6..<12].reversed(), kind: parameters[5] & 1 == 0 ? .public : .random)
        else {
            return answer(ControllerEvents.status(command.opcode, .invalidParameters))
        }
        let refused = state.withLock { state in
            guard state.pendingConnection == nil else { return true }
            if !peers.contains(where: { $0.address == address }) { state.pendingConnection = address }
            return false
        }
        guard !refused else { return answer(ControllerEvents.status(command.opcode, .commandDisallowed)) }
        answer(ControllerEvents.status(command.opcode, .success))
        if let peer = peers.first(where: { $0.address == address }) { await openLink(to: peer) }
    }
}

/// A virtual peer's Security Manager channel: PDUs from the central arrive on `incoming`, and
/// what the peer sends goes to the central on CID 0x0006.
