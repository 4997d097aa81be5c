import Harald
import HaraldATT
import HaraldCore
import HaraldGATTLink
import HaraldSMP

/// The keys a virtual device keeps for the centrals it bonded with, per device: what a central
/// may encrypt with on its next connection. ``Simulator/forgetBonds(of:)`` empties a device's.
struct DeviceBondTable: Sendable {
    /// device address → central address → the keys that central may present.
    private var keys: [BluetoothAddress: [BluetoothAddress: [LongTermKey]]] = [:]
    /// How many Pairing Requests each device has served.
    private(set) var pairingsServed: [BluetoothAddress: Int] = [:]

    mutating func countPairing(by device: BluetoothAddress) { pairingsServed[device, default: 0] += 1 }

    func keys(of device: BluetoothAddress, for central: BluetoothAddress) -> [LongTermKey] { keys[device]?[central] ?? [] }

    mutating func store(_ newKeys: [LongTermKey], of device: BluetoothAddress, for central: BluetoothAddress) {
        keys[device, default: [:]][central] = newKeys
    }

    mutating func forget(_ device: BluetoothAddress) { keys[device] = nil }
}

/// One simulated connection as Harald's Security Manager sees it from the central: the SMP
/// channel to the device's own Security Manager (an `SMPResponder` started for each Pairing
/// Request), and link-layer encryption modelled as the controllers do it — the device looks the
/// key up, refuses with PIN or Key Missing when it has none, and drops the link with MIC Failure
/// when the key differs.
final class SimulatedPairableLink: PairableLink {
    let peerAddress: BluetoothAddress
    private let centralAddress: BluetoothAddress
    private let device: DeviceSecurity
    private let deviceIdentity: LocalIdentity?
    private let channel: SimulatedSMPChannel
    /// The keys the world's devices keep (the simulator's table; not the simulator itself, which
    /// holds its connections and so, through the central's link security, this link).
    private let deviceBonds: Locked<DeviceBondTable>
    private let server: GATTServer
    private let serverConnection: GATTConnectionID
    private let link: SimulatedLink
    private let clock: VirtualClock

    private struct State {
        var encryption = LinkEncryption(isEncrypted: false)
        /// The device's responder waits for the central to encrypt with this key, which gives
        /// the link this level.
        var awaitedKey: SecretKey128?
        var awaitedLevel = SecurityLevel.encrypted
        /// The key size the pairing negotiated, in octets.
        var awaitedKeySize = 16
        var encryptionWaiter: CheckedContinuation<Void, any Error>?
    }

    private let state = Locked(State())

    init(
        device: DeviceSecurity, deviceAddress: BluetoothAddress, centralAddress: BluetoothAddress, world: Simulator, server: GATTServer,
        serverConnection: GATTConnectionID, link: SimulatedLink
    ) {
        self.device = device
        self.peerAddress = deviceAddress
        self.centralAddress = centralAddress
        self.deviceBonds = world.deviceBonds
        self.server = server
        self.serverConnection = serverConnection
        self.link = link
        self.clock = world.clock
        channel = SimulatedSMPChannel(clock: world.clock, latency: link.parameters.connectionInterval)
        deviceIdentity = Self.identity(of: deviceAddress)
    }

    /// A device's identity for key distribution: its address when that is public or static random,
    /// with an IRK the simulator derives from it (simulated keys protect nothing).
    private static func identity(of address: BluetoothAddress) -> LocalIdentity? {
        guard address.isIdentity, let key = SecretKey128(littleEndianBytes: address.bytes + address.bytes + [0x49, 0x52, 0x4B, 0x00]) else {
            return nil
        }
        return try? LocalIdentity(address: address, identityResolvingKey: IdentityResolvingKey(key: key))
    }

    /// Serves the device's side of SMP until the link closes: each Pairing Request starts a
    /// responder (`SMPResponderService`). Run inside the simulation.
    func serveDevice() async {
        let channel = channel
        let service = SMPResponderService(
            configuration: device.configuration, agent: DevicePerson(security: device),
            addresses: PairingAddresses(initiator: centralAddress, responder: peerAddress),
            localKeys: SMPResponderLocalKeys(identity: device.distributedIdentity ?? deviceIdentity),
            clock: clock, taskStarter: clock.taskStarter, send: { pdu in try await channel.send(pdu, from: .peripheral) },
            serialDomain: server.serialDomain
        ) { [weak self] key, level, keySize in
            guard let self else { throw PairingError.linkLost("the link closed") }
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
                self.state.withLock { state in
                    state.awaitedKey = key
                    state.awaitedLevel = level
                    state.awaitedKeySize = keySize
                    state.encryptionWaiter = waiter
                }
            }
        }
        let (deviceBonds, device, central) = (deviceBonds, peerAddress, centralAddress)
        await service.serve(channel.peripheralIncoming, onStart: { deviceBonds.withLock { $0.countPairing(by: device) } }) { [weak self] outcome in
            guard case .success(let outcome) = outcome, outcome.isBonding else { return }
            let keys = [outcome.longTermKey, outcome.localLongTermKey].compactMap(\.self)
            deviceBonds.withLock { $0.store(keys, of: device, for: central) }
            await self?.bondChanged()
        }
    }

    /// The level the central's bond with the device gives (nil: the device keeps no key for it).
    private func bondedLevel() -> SecurityLevel? {
        deviceBonds.withLock { $0.keys(of: peerAddress, for: centralAddress) }.map(\.securityLevel).max()
    }

    /// Tells the device's GATT server whether the central has a bond with it (before any request:
    /// it decides 0x0F against 0x05).
    func announceBond() async {
        var security = await server.security(for: serverConnection) ?? .none
        security.bondedLevel = bondedLevel()
        await server.setSecurity(security, for: serverConnection)
    }

    private func bondChanged() async { await announceBond() }

    /// Ends the channel and any wait for encryption (the link closed).
    func close() {
        channel.close()
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            defer { state.encryptionWaiter = nil }
            state.encryption = LinkEncryption(isEncrypted: false)
            return state.encryptionWaiter
        }
        waiter?.resume(throwing: PairingError.linkLost("the link closed"))
    }

    // MARK: PairableLink

    /// The central ends the link (Authentication Failure).
    func disconnect() async {
        await link.close(reason: .terminated(by: .central))
    }

    /// The simulator knows devices by their identity address only.
    var peerIdentity: BluetoothAddress? { nil }

    func localAddress() async -> BluetoothAddress? { centralAddress }

    func encryption() async -> LinkEncryption { state.withLock { $0.encryption } }

    var securityManagerPDUs: AsyncStream<[UInt8]> { channel.centralIncoming }

    func sendSecurityManagerPDU(_ pdu: [UInt8]) async throws { try await channel.send(pdu, from: .central) }

    /// LE Enable Encryption: during a pairing the device's responder waits for this very key (the
    /// new LTK, or legacy pairing's STK); otherwise the device's controller asks its host for the
    /// key of a bond (LE Long Term Key Request, with EDIV and Rand) — none is PIN or Key Missing,
    /// another key drops the link with MIC Failure.
    func encrypt(with key: SecretKey128, ediv: UInt16, rand: UInt64) async throws(LinkEncryptionError) {
        try await encryptionProcedure()
        let pairing = state.withLock {
            state -> (awaited: SecretKey128?, waiter: CheckedContinuation<Void, any Error>, level: SecurityLevel, keySize: Int)? in
            guard let waiter = state.encryptionWaiter else { return nil }
            defer {
                state.awaitedKey = nil
                state.encryptionWaiter = nil
            }
            return (state.awaitedKey, waiter, state.awaitedLevel, state.awaitedKeySize)
        }
        if let pairing {
            guard pairing.awaited == key else {
                pairing.waiter.resume(throwing: PairingError.linkLost("the keys differ (MIC failure)"))
                await link.close(reason: .failure("MIC failure (0x3D): the keys differ"))
                throw .keysDiffer
            }
            await switchOnEncryption(level: pairing.level, keySize: pairing.keySize)
            pairing.waiter.resume()
            return
        }
        let known = deviceBonds.withLock { $0.keys(of: peerAddress, for: centralAddress) }
        guard let match = known.first(where: { $0.ediv == ediv && $0.rand == rand }) else { throw .peerKeyMissing }
        guard match.key == key else {
            await link.close(reason: .failure("MIC failure (0x3D): the keys differ"))
            throw .keysDiffer
        }
        await switchOnEncryption(level: match.securityLevel, keySize: match.keySize)
    }

    /// The link-layer exchange (LL_ENC_REQ, LL_ENC_RSP, LL_START_ENC_REQ/RSP): two connection
    /// events; fails when the link is down.
    private func encryptionProcedure() async throws(LinkEncryptionError) {
        guard link.isOpen else { throw .failed(.disconnected(.connectionLost)) }
        do { try await clock.sleep(for: link.parameters.connectionInterval * 2) } catch { throw .failed(.cancelled) }
        guard link.isOpen else { throw .failed(.disconnected(.connectionLost)) }
    }

    private func switchOnEncryption(level: SecurityLevel, keySize: Int) async {
        state.withLock { $0.encryption = LinkEncryption(isEncrypted: true, keySize: keySize) }
        await server.setSecurity(
            GATTSecurity(
                isEncrypted: true, isAuthenticated: level >= .authenticated, keySize: keySize,
                isSecureConnections: level == .authenticatedSecureConnections, bondedLevel: bondedLevel()),
            for: serverConnection)
    }
}

/// The virtual device's person: types or shows the device's fixed passkey, answers Numeric
/// Comparison as configured, accepts Just Works.
private struct DevicePerson: PairingAgent {
    let security: DeviceSecurity

    func confirmJustWorks() async -> Bool { true }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { security.confirmsNumericComparison }
    func enterPasskey() async -> UInt32? { security.passkey }
    func displayPasskey(_ passkey: UInt32) async {}
    func passkeyToDisplay() async -> UInt32? { security.passkey }
}
