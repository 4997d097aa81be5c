import Foundation
import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink
import HaraldHCI
import HaraldL2CAP
import HaraldSMP
import Logging

/// Harald as the device, over its own HCI host: advertises, accepts centrals, serves a GATT
/// database to each over its ATT channel, and — with a `SecurityConfiguration` — pairs as the
/// Security Manager's responder, keeps bonds, and answers the controller's LE Long Term Key
/// Requests from them, so a bonded central re-encrypts without pairing again.
///
/// Attributes whose permissions need encryption or authentication are refused until the link has
/// that level — Insufficient Authentication (0x05) for a central without a bond, Insufficient
/// Encryption (0x0F) for a bonded one that has not encrypted yet, Encryption Key Size Too Short
/// (0x0C) for a short key; the central then pairs or encrypts, and the server sees the new level
/// and key size as soon as the controller reports Encryption Change.
public actor HCIPeripheral {
    /// Events an ``events()`` stream holds for a reader that falls behind; the oldest go first.
    static let eventBufferLimit = 256

    /// What happens on the peripheral's links.
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// A central connected from this address.
        case connected(BluetoothAddress)
        /// A central disconnected; `reason` is the HCI error code.
        case disconnected(BluetoothAddress, reason: UInt8)
        /// The link is encrypted now, at this level.
        case encrypted(BluetoothAddress, SecurityLevel)
        /// A pairing finished: how, and whether the bond was stored.
        case paired(BluetoothAddress, PairingMethod, bonded: Bool)
        /// Pairing with a central failed, and why.
        case pairingFailed(BluetoothAddress, String)

        /// The event and the central's address, e.g. `connected C0:00:00:00:00:01/random` or
        /// `disconnected C0:00:00:00:00:01/random (reason 0x13)`.
        public var description: String {
            switch self {
            case let .connected(peer): "connected \(peer)"
            case let .disconnected(peer, reason): "disconnected \(peer) (reason 0x\(String(reason, radix: 16)))"
            case let .encrypted(peer, level): "encrypted \(peer): \(level)"
            case let .paired(peer, method, bonded): "paired \(peer) with \(method)\(bonded ? ", bonded" : "")"
            case let .pairingFailed(peer, reason): "pairing with \(peer) failed: \(reason)"
            }
        }
    }

    /// The HCI host doing the work. The peripheral, its GATT server and each link's Security
    /// Manager run on the host's executor (its transport's thread): the host is their serial
    /// domain.
    public let host: HCIHost
    /// The host's executor (its transport's thread, or its own queue over a transport without
    /// one), where the peripheral runs.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { host.unownedExecutor }
    /// The GATT server every central talks to.
    public let server: GATTServer
    private let security: SecurityConfiguration?
    /// Repeated Attempts protection for every central's pairing (Core spec Vol 3 Part H §2.3.6):
    /// the configuration's limiter, or one of this peripheral's own.
    private let pairingAttempts: PairingAttemptLimiter
    private let localMTU: Int
    private let logger: Logger
    private var advertising: HostAdvertising?
    private var advertisesAgain = false
    /// The streams ``events()`` handed out.
    private let watchers = StreamBroadcast<Event>(bufferingNewest: eventBufferLimit)
    private var acceptor: Task<Void, Never>?
    /// Keys the responder waits for the central to encrypt with, by peer (answers LTK Requests
    /// during pairing), and the encryption waits themselves.
    private var pairingKeys: [BluetoothAddress: (key: SecretKey128, waiter: CheckedContinuation<Void, any Error>)] = [:]
    /// The level each link has (or will have once encrypted with the key handed out for it).
    private var expectedLevels: [UInt16: SecurityLevel] = [:]
    /// The key size (octets) each link's key has, when the pairing or the bond said.
    private var expectedKeySizes: [UInt16: Int] = [:]
    /// The level the central's bond with us gives, per link; nil entry: no bond (no LTK).
    private var bondedLevels: [UInt16: SecurityLevel] = [:]
    /// Peers with a pairing under way (set when their Pairing Request arrives).
    private let pairingUnderWay = Locked<Set<BluetoothAddress>>([])
    /// LTK Requests waiting for the key a pairing under way is about to register, by peer.
    private var keyWaiters: [BluetoothAddress: [UInt64: CheckedContinuation<Void, Never>]] = [:]
    private var nextKeyWaiter: UInt64 = 0
    /// The limits of those waits, on the host's clock.
    package var deadlines: DeadlineSchedule<DeadlineAction>
    /// Each link's connection at the GATT server.
    private var serverConnections: [UInt16: GATTConnectionID] = [:]
    /// Callers waiting for a link's server connection (a channel the host accepted on a link this
    /// peripheral has not finished taking in): resumed when it is registered, or with nil when the
    /// link ends first.
    private var connectionWaiters: [UInt16: [CheckedContinuation<GATTConnectionID?, Never>]] = [:]
    /// Links whose serving ended, counted (a wait that saw one end meanwhile gives up).
    private var linksEnded = 0
    private var linkEventSink: (@Sendable (GATTConnectionID, Event) -> Void)?

    private init(
        host: HCIHost, server: GATTServer, security: SecurityConfiguration?, localMTU: Int, logger: Logger, clock: any Clock<Duration>
    ) {
        self.host = host
        self.deadlines = DeadlineSchedule(anyClock: clock)
        self.server = server
        self.security = security
        self.pairingAttempts = security?.attempts ?? PairingAttemptLimiter()
        self.localMTU = localMTU
        self.logger = logger
    }

    deinit { deadlines.cancelSleeper() }

    /// Opens `transport` (`tcp:HOST:PORT` or `hci:N`), sets up the controller and serves
    /// `services`. With `security`, the host's random address is the identity kept in the bond
    /// store (so bonded centrals recognise it), and pairing is answered; with `privateAddress`
    /// too, it advertises from resolvable private addresses of that identity's IRK instead,
    /// a fresh one every `privateAddressInterval` (15 minutes by default).
    package static func open(
        transport specification: String, services: [GATTServiceDefinition], configuration: HCIHost.Configuration = HCIHost.Configuration(),
        security: SecurityConfiguration? = nil, localMTU: Int = 517, privateAddress: Bool = false,
        privateAddressInterval: Duration = PrivateAddressRotation.defaultInterval
    ) async throws -> HCIPeripheral {
        let transport: any HCITransport
        do { transport = try openHCITransport(specification) } catch {
            throw HCIError.unsupported("cannot open \(specification): \(error)")
        }
        return try await open(
            transport: transport, services: services, configuration: configuration, security: security, localMTU: localMTU,
            privateAddress: privateAddress, privateAddressInterval: privateAddressInterval)
    }

    /// Sets up the controller behind an open `transport` and serves `services`; `clock` measures
    /// the host's timeouts and the private address interval.
    package static func open(
        transport: any HCITransport, services: [GATTServiceDefinition], configuration: HCIHost.Configuration = HCIHost.Configuration(),
        security: SecurityConfiguration? = nil, localMTU: Int = 517, privateAddress: Bool = false,
        privateAddressInterval: Duration = PrivateAddressRotation.defaultInterval, clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> HCIPeripheral {
        var configuration = configuration
        if let security {
            configuration.deliversSecurityManagerPDUs = true
            if configuration.randomAddress == nil {
                let identity = try await HCICentralBackend.localIdentity(in: security.bonds)
                if privateAddress {
                    configuration.privateAddress = HCICentralBackend.privateAddressRotation(of: identity, every: privateAddressInterval)
                } else if identity.address.kind == .random {
                    configuration.randomAddress = identity.address
                }
            }
        }
        let host = HCIHost(transport: transport, clock: clock, configuration: configuration)
        let server = try GATTServer(services: services, configuration: .peripheral, serialDomain: host)
        try await host.start()
        let peripheral = HCIPeripheral(
            host: host, server: server, security: security, localMTU: localMTU, logger: configuration.logger, clock: clock)
        await peripheral.startAccepting()
        return peripheral
    }

    /// Advertises (replacing what is on air). With `again`, advertising resumes after each
    /// connection (a connection stops connectable advertising; several centrals may connect where
    /// the controller allows) and whenever a central disconnects.
    public func advertise(_ advertising: LegacyAdvertising, again: Bool = true) async throws(HCIError) {
        try await advertise(.legacy(advertising), again: again)
    }

    /// Advertises legacy or extended advertising (extended carries more than 31 octets, on
    /// controllers that have it); `again` as for legacy advertising.
    public func advertise(_ advertising: HostAdvertising, again: Bool = true) async throws(HCIError) {
        try await host.startAdvertising(advertising)
        self.advertising = advertising
        advertisesAgain = again
    }

    /// Stops advertising; centrals already connected stay.
    public func stopAdvertising() async throws(HCIError) {
        advertising = nil
        try await host.stopAdvertising()
    }

    /// What happens from now on, until the peripheral closes. Each call returns a new stream.
    public func events() -> AsyncStream<Event> { watchers.makeStream() }

    /// Disconnects every central and closes the host.
    public func close() async {
        advertisesAgain = false
        acceptor?.cancel()
        for link in await host.openConnections {
            _ = try? await link.disconnect()
        }
        await host.close()
        watchers.finish()
    }

    private func report(_ event: Event) {
        logger.info("\(event)")
        watchers.yield(event)
    }

    /// Reports an event of `link` to the watchers and, with the server connection it belongs
    /// to, to the link-event sink.
    private func report(_ event: Event, on link: LEConnection) {
        report(event)
        if let sink = linkEventSink, let id = serverConnections[link.handle] { sink(id, event) }
    }

    /// Also hands every security event of a link (encrypted, paired, pairing failed) to `sink`,
    /// with the GATT server connection of that link, in order and before the link is gone: how a
    /// served definition's events name the central.
    public func setLinkEventSink(_ sink: @escaping @Sendable (GATTConnectionID, Event) -> Void) {
        linkEventSink = sink
    }

    // MARK: Links

    private func startAccepting() async {
        let incoming = await host.incomingConnections()
        if security != nil {
            await host.setLongTermKeyProvider { [weak self] peer, rand, ediv in
                await self?.longTermKey(for: peer, rand: rand, ediv: ediv)
            }
        }
        acceptor = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                for await link in incoming {
                    group.addTask { await self?.serve(link) }
                }
            }
        }
    }

    /// Serves one central until its link ends.
    private func serve(_ link: LEConnection) async {
        report(.connected(link.peer))
        let bearer = L2CAPATTBearer(connection: link, host: host, localMTU: localMTU, logger: logger)
        // Whether the central has a key with us decides 0x0F (encrypt with it) against 0x05 (pair).
        if let bond = await bond(of: link.peer) { bondedLevels[link.handle] = bond.securityLevel }
        let serverConnection = await server.attach(bearer, security: gattSecurity(of: link, isEncrypted: false))
        serverConnections[link.handle] = serverConnection
        for waiter in connectionWaiters.removeValue(forKey: link.handle) ?? [] { waiter.resume(returning: serverConnection) }
        // A connection stops connectable advertising: advertise again for the next central, if
        // the controller can hold another connection (one that cannot refuses, which is logged).
        if advertisesAgain, let advertising {
            do { try await host.startAdvertising(advertising) } catch {
                logger.info("advertising for another central failed", metadata: ["error": "\(error)"])
            }
        }
        await withTaskGroup(of: Void.self) { group in
            // Watching starts before the current state is read, so an encryption the central
            // started at once (it encrypts a bonded peer before its first request) is not missed.
            let changes = link.encryptionChanges()
            let parameters = link.parameters
            if parameters.isEncrypted {
                await linkEncrypted(link, LinkEncryption(isEncrypted: true, keySize: parameters.keySize.map(Int.init)), serverConnection: serverConnection)
            }
            group.addTask { [weak self] in
                for await encryption in changes {
                    await self?.linkEncrypted(link, encryption, serverConnection: serverConnection)
                }
            }
            if let security {
                group.addTask { [weak self] in await self?.serveSecurityManager(link, security: security) }
            }
            _ = await link.waitUntilDisconnected()
            group.cancelAll()
        }
        expectedLevels[link.handle] = nil
        expectedKeySizes[link.handle] = nil
        bondedLevels[link.handle] = nil
        serverConnections[link.handle] = nil
        for waiter in connectionWaiters.removeValue(forKey: link.handle) ?? [] { waiter.resume(returning: nil) }
        linksEnded += 1
        if let pending = pairingKeys.removeValue(forKey: link.peer) { pending.waiter.resume(throwing: PairingError.linkLost("the link ended")) }
        report(.disconnected(link.peer, reason: link.disconnectReason?.rawValue ?? 0))
        if advertisesAgain, let advertising {
            do { try await host.startAdvertising(advertising) } catch {
                guard await host.closeReason == nil else { return }  // closing: nothing to advertise for
                logger.warning("advertising again after a disconnection failed", metadata: ["error": "\(error)"])
            }
        }
    }

    // MARK: Channels

    /// Serves credit-based channels on `spsm` (nil: the lowest dynamic SPSM not served yet) to
    /// centrals whose link meets `requirement`; a central that falls short is refused with the
    /// result the spec gives for it (insufficient authentication, encryption or key size), as a
    /// GATT server refuses an attribute access.
    public func serveChannels(spsm: UInt16?, requirement: GATTSecurityRequirement, limits: CreditBasedReceiveLimits) async throws(HCIError)
        -> CreditBasedChannelListener
    {
        var chosen = spsm
        if chosen == nil {
            for candidate in UInt16(0x80)...0xFF where await !host.isServingChannels(on: candidate) {
                chosen = candidate
                break
            }
        }
        guard let chosen else { throw .busy("every dynamic SPSM is served") }
        return try await host.serveCreditBasedChannels(spsm: chosen, limits: limits) { [weak self] handle, _ in
            guard let self else { return .noResourcesAvailable }
            guard let refusal = requirement.refusal(for: await self.gattSecurity(ofHandle: handle)) else { return nil }
            return CreditBasedConnectionResult(rawValue: L2CAPChannelRefusal(securityShortfall: refusal).rawValue)
        }
    }

    /// The link's security as the GATT server sees it now (an unencrypted link when the link ended).
    private func gattSecurity(ofHandle handle: UInt16) async -> GATTSecurity {
        guard let serverConnection = await serverConnection(ofHandle: handle) else { return .none }
        return await server.security(for: serverConnection) ?? .none
    }

    /// The GATT server connection of the link `handle` (how its central is named). A link the
    /// host announced and this peripheral is still taking in (a central that opens a channel at
    /// once can be that quick) is waited for; nil once the link has ended.
    public func serverConnection(ofHandle handle: UInt16) async -> GATTConnectionID? {
        if let connection = serverConnections[handle] { return connection }
        let ended = linksEnded
        let connected = await host.isConnected(handle: handle)
        if let connection = serverConnections[handle] { return connection }
        // Gone, or a link ended while the host was asked (it may have been this one): no wait
        // that nothing would end.
        guard connected, linksEnded == ended else { return nil }
        return await withCheckedContinuation { connectionWaiters[handle, default: []].append($0) }
    }

    private func linkEncrypted(_ link: LEConnection, _ encryption: LinkEncryption, serverConnection: GATTConnectionID) async {
        let level = expectedLevels[link.handle] ?? .encrypted
        if let size = encryption.keySize { expectedKeySizes[link.handle] = min(size, expectedKeySizes[link.handle] ?? size) }
        await server.setSecurity(gattSecurity(of: link, isEncrypted: encryption.isEncrypted), for: serverConnection)
        report(.encrypted(link.peer, level), on: link)
    }

    /// The central's bond with us, if the peripheral keeps bonds and it has one.
    private func bond(of peer: BluetoothAddress) async -> Bond? {
        guard let bonds = security?.bonds, let bond = try? await bonds.bond(resolving: peer) else { return nil }
        return bond.longTermKey != nil || bond.localLongTermKey != nil ? bond : nil
    }

    /// What the GATT server is told of `link`: encrypted or not, with the level and key size its
    /// key has, and the level of the central's bond (0x0F rather than 0x05 when it has one).
    private func gattSecurity(of link: LEConnection, isEncrypted: Bool) -> GATTSecurity {
        let level = expectedLevels[link.handle] ?? .encrypted
        return GATTSecurity(
            isEncrypted: isEncrypted, isAuthenticated: level >= .authenticated, keySize: expectedKeySizes[link.handle] ?? 16,
            isSecureConnections: level == .authenticatedSecureConnections, bondedLevel: bondedLevels[link.handle])
    }

    /// The Security Manager as responder on `link`'s channel 0x0006.
    private func serveSecurityManager(_ link: LEConnection, security: SecurityConfiguration) async {
        let identity = try? await security.bonds.localIdentity()
        // The address the central connected to (our private address may have rotated since).
        let current = await host.currentRandomAddress
        let ours = link.localAddress ?? current ?? link.peer
        let channel = link.securityManager
        // The central's keys pass the bond rules before the pairing ends: a claimed identity is
        // proven by the link, another central's bond is never overwritten, a weaker pairing
        // replaces a bond only if the agent confirms.
        let admission = BondAdmission(bonds: security.bonds, agent: security.agent)
        let service = SMPResponderService(
            configuration: security.pairing, agent: security.agent, addresses: PairingAddresses(initiator: link.peer, responder: ours),
            localKeys: SMPResponderLocalKeys(identity: identity), attempts: pairingAttempts, send: { pdu in try await channel.send(pdu) },
            checkPeerKeys: { keys in await admission.check(keys, knownIdentity: nil) }, serialDomain: host
        ) { [weak self] key, level, keySize in
            guard let self else { throw PairingError.linkLost("the peripheral closed") }
            try await self.awaitEncryption(of: link, with: key, level: level, keySize: keySize)
        }
        let (underWay, peer) = (pairingUnderWay, link.peer)
        await service.serve(channel.incoming, onStart: { underWay.withLock { _ = $0.insert(peer) } }) { [weak self] outcome in
            underWay.withLock { _ = $0.remove(peer) }
            await self?.pairingEnded(on: link, outcome, security: security)
        }
        keyRegistered(for: link.peer)  // nothing more will come on this link
    }

    /// Hands `key` to the next LTK Request of `link` and waits for the encryption; the server
    /// grants `level` with a `keySize`-octet key from the Encryption Change on (an Encryption
    /// Change that reports a size can only lower it).
    private func awaitEncryption(of link: LEConnection, with key: SecretKey128, level: SecurityLevel, keySize: Int) async throws {
        expectedLevels[link.handle] = level
        expectedKeySizes[link.handle] = keySize
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            pairingKeys[link.peer] = (key, waiter)
            keyRegistered(for: link.peer)
        }
    }

    /// Waits until a pairing under way with `peer` registers its key, it ends, or `limit` passes.
    private func waitForPairingKey(of peer: BluetoothAddress, atMost limit: Duration) async {
        guard pairingKeys[peer] == nil, pairingUnderWay.withLock({ $0.contains(peer) }) else { return }
        nextKeyWaiter += 1
        let id = nextKeyWaiter
        let deadline = addDeadline(after: limit, .keyWait(peer, id))
        // Registered before the actor is given up, so neither the key nor the deadline can come first.
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in keyWaiters[peer, default: [:]][id] = waiter }
        cancelDeadline(deadline)
    }

    private func stopWaitingForKey(of peer: BluetoothAddress, id: UInt64) {
        keyWaiters[peer]?.removeValue(forKey: id)?.resume()
        if keyWaiters[peer]?.isEmpty == true { keyWaiters[peer] = nil }
    }

    /// The key is there, or the pairing or the link ended: every LTK Request waiting goes on.
    private func keyRegistered(for peer: BluetoothAddress) {
        for waiter in (keyWaiters.removeValue(forKey: peer) ?? [:]).values { waiter.resume() }
    }

    /// LE Long Term Key Request: the key a pairing under way waits for, else the bond's.
    private func longTermKey(for peer: BluetoothAddress, rand: UInt64, ediv: UInt16) async -> SecretKey128? {
        let link = await host.openConnections.first { $0.peer == peer }
        // The responder registers its key just after sending its last phase-2 PDU; a central
        // quick enough to encrypt first gets the key as soon as it is there (within a second).
        await waitForPairingKey(of: peer, atMost: .seconds(1))
        if let pending = pairingKeys.removeValue(forKey: peer) {
            // The encryption that finishes phase 2: the responder goes on once it is on. The
            // stream is taken before the key is handed out, so the change cannot be missed.
            guard let changes = link?.encryptionChanges() else {
                pending.waiter.resume(throwing: PairingError.linkLost("the link ended before encryption"))
                return nil
            }
            Task {
                for await _ in changes {
                    pending.waiter.resume()
                    return
                }
                pending.waiter.resume(throwing: PairingError.linkLost("the link ended before encryption"))
            }
            return pending.key
        }
        guard let bonds = security?.bonds, let bond = try? await bonds.bond(resolving: peer),
            let key = bond.longTermKey(requestedWithEDIV: ediv, rand: rand)
        else { return nil }
        if let link {
            expectedLevels[link.handle] = key.securityLevel
            expectedKeySizes[link.handle] = key.keySize
        }
        return key.key
    }

    private func pairingEnded(on link: LEConnection, _ outcome: Result<PairingOutcome, PairingError>, security: SecurityConfiguration) async {
        keyRegistered(for: link.peer)
        switch outcome {
        case .failure(let error):
            report(.pairingFailed(link.peer, error.description), on: link)
            if case .keysRefused = error {
                // Encrypted with a key whose central is not who it claims, or would weaken its
                // bond: the link ends rather than be served at that level.
                logger.warning("a central's keys were refused; nothing stored", metadata: ["peer": "\(link.peer)", "error": "\(error)"])
                _ = try? await link.disconnect(reason: .authenticationFailure)
            }
        case .success(let outcome):
            let level = outcome.method.securityLevel(keySize: outcome.keySize)
            expectedLevels[link.handle] = level
            expectedKeySizes[link.handle] = min(outcome.keySize, expectedKeySizes[link.handle] ?? outcome.keySize)
            let bonded = await storeBond(outcome, peer: link.peer, security: security)
            if bonded { bondedLevels[link.handle] = level }
            // The link was encrypted before the method was known: the server learns the level now.
            if let id = serverConnections[link.handle] {
                await server.setSecurity(gattSecurity(of: link, isEncrypted: link.parameters.isEncrypted), for: id)
            }
            report(.paired(link.peer, outcome.method, bonded: bonded), on: link)
        }
    }

    /// Stores the bond a pairing made, keyed by the central's identity address.
    private func storeBond(_ outcome: PairingOutcome, peer: BluetoothAddress, security: SecurityConfiguration) async -> Bool {
        guard outcome.isBonding, let key = outcome.longTermKey ?? outcome.localLongTermKey else { return false }
        guard let identity = BondAdmission.bondIdentity(distributed: outcome.peerIdentityAddress, knownIdentity: nil, connectedFrom: peer)
        else { return false }
        do {
            let bond = try Bond(
                identityAddress: identity, lastAddress: peer, longTermKey: outcome.longTermKey,
                localLongTermKey: outcome.localLongTermKey, peerIdentityResolvingKey: outcome.peerIdentityResolvingKey,
                peerSignatureKey: outcome.peerSignatureKey, localSignatureKey: nil, keySize: outcome.keySize,
                isAuthenticated: key.isAuthenticated, isSecureConnections: key.isSecureConnections, createdAt: Date())
            try await security.bonds.save(bond)
            return true
        } catch {
            logger.warning("could not store the bond", metadata: ["peer": "\(peer)", "error": "\(error)"])
            return false
        }
    }
}

extension HCIPeripheral: DeadlineOwner {
    /// What a deadline of the peripheral ends.
    package enum DeadlineAction: Sendable {
        /// An LTK Request's wait for the key of a pairing under way with this peer.
        case keyWait(BluetoothAddress, UInt64)
    }

    package nonisolated func startDeadlineSleeper(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        TaskStarter.default.start(work)
    }

    package func deadlinePassed(_ action: DeadlineAction) async {
        switch action {
        case let .keyWait(peer, id): stopWaitingForKey(of: peer, id: id)
        }
    }
}
