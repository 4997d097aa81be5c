import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Logging
import Testing

/// Where scripts/integration put the pairing bench, or nil when it is not running.
enum SecureBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_SECURE_TRANSPORT"] }
    /// The control port of Harald-SEC (scripts/bumble/secure_peer.py) on 127.0.0.1.
    static var controlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_SECURE_CONTROL_PORT"].flatMap { UInt16($0) } }
    /// Harald-SEC's static random address (scripts/integration gives it this one).
    static let address = BluetoothAddress("C0:00:00:00:00:0C", kind: .random)!
    static var isConfigured: Bool { transport != nil && controlPort != nil }

    static let service = BluetoothUUID("5EC00001-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    /// Readable by anyone.
    static let open = BluetoothUUID("5EC00002-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    /// Refused with Insufficient Encryption (0x0F) on a link that is not encrypted.
    static let encrypted = BluetoothUUID("5EC00003-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    /// Refused with Insufficient Authentication (0x05) on a link that is not encrypted.
    static let guarded = BluetoothUUID("5EC00004-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
}

/// Harald-SEC's control channel: how it pairs, and what it saw.
struct SecurePeer: Sendable {
    let control: ScenarioControlChannel

    /// What the peer reports about its pairings (`status`).
    struct Status: Sendable {
        var started: Int
        var completed: Int
        var failed: Int
        var lastFailure: Int?
        var comparison: Int?
        var passkeyShown: Int?
        var encrypted: Bool
        var connected: Int
        var smpReceived: [Int]
        var identity: BluetoothAddress?
    }

    init() throws {
        control = ScenarioControlChannel(port: try #require(SecureBench.controlPort))
    }

    /// Defaults (SC Just Works, bonding, no MITM, passkey 123456), counters cleared, bonds forgotten.
    func reset() async throws { _ = try await control.send(["op": "reset"]) }

    func configure(_ settings: [String: Any]) async throws {
        _ = try await control.send(settings.merging(["op": "configure"]) { _, op in op })
    }

    /// Deletes the peer's keystore: it "lost the bond".
    func forgetBonds() async throws { _ = try await control.send(["op": "forget_bonds"]) }

    func status() async throws -> Status {
        let answer = try await control.send(["op": "status"])
        return Status(
            started: answer["started"] as? Int ?? -1, completed: answer["completed"] as? Int ?? -1,
            failed: answer["failed"] as? Int ?? -1, lastFailure: answer["last_failure"] as? Int,
            comparison: answer["comparison"] as? Int, passkeyShown: answer["passkey_shown"] as? Int,
            encrypted: answer["encrypted"] as? Bool ?? false, connected: answer["connected"] as? Int ?? -1,
            smpReceived: answer["smp_received"] as? [Int] ?? [],
            identity: (answer["identity"] as? String).flatMap { BluetoothAddress($0, kind: .random) })
    }

    /// One entry of the peer's keystore.
    struct StoredBond: Sendable {
        /// Whom it is for: our identity address, as Bumble names it ("/P" for a public one).
        var address: BluetoothAddress?
        /// The LTK for us (SC: the derived one; legacy: the one the peer distributed).
        var longTermKey: SecretKey128?
        var ediv: Int?
    }

    func bonds() async throws -> [StoredBond] {
        let answer = try await control.send(["op": "bonds"])
        return (answer["bonds"] as? [[String: Any]] ?? []).map { entry in
            let name = entry["name"] as? String ?? ""
            let address = BluetoothAddress(
                String(name.prefix { $0 != "/" }), kind: name.hasSuffix("/P") ? .public : .random)
            let key = (entry["ltk"] as? String).flatMap(Self.octets).flatMap { SecretKey128(littleEndianBytes: $0) }
            return StoredBond(address: address, longTermKey: key, ediv: entry["ediv"] as? Int)
        }
    }

    /// Replaces every LTK the peer stores by another one.
    func changeKeys() async throws { _ = try await control.send(["op": "change_keys"]) }

    /// The octets of a hex string, in order.
    static func octets(_ hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }
    }

    /// Waits until the peer has no link (a test's disconnect has reached it).
    func waitUntilDisconnected() async throws {
        for _ in 0..<100 {
            if try await status().connected == 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the peer still has a link")
    }

    /// Waits until `condition` holds for the peer's status (up to `seconds`); returns the last one.
    @discardableResult
    func waitFor(seconds: Int = 20, _ condition: (Status) -> Bool) async throws -> Status {
        var last = try await status()
        for _ in 0..<(seconds * 20) where !condition(last) {
            try await Task.sleep(for: .milliseconds(50))
            last = try await status()
        }
        return last
    }
}

/// A pairing agent that answers like ``AutomaticPairingAgent`` and records what it was shown; a
/// passkey it displays is handed to `typing` (the person typing it on the peer).
final class RecordingAgent: PairingAgent {
    private let passkey: UInt32?
    private let acceptsComparison: Bool
    private let typing: (@Sendable (UInt32) async -> Void)?
    private let comparisons = Locked<[UInt32]>([])
    private let displayed = Locked<[UInt32]>([])

    init(passkey: UInt32? = nil, acceptsComparison: Bool = true, typing: (@Sendable (UInt32) async -> Void)? = nil) {
        self.passkey = passkey
        self.acceptsComparison = acceptsComparison
        self.typing = typing
    }

    var comparedValues: [UInt32] { comparisons.value }
    var displayedPasskeys: [UInt32] { displayed.value }

    func confirmJustWorks() async -> Bool { true }
    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool {
        comparisons.withLock { $0.append(value.value) }
        return acceptsComparison
    }
    func enterPasskey() async -> UInt32? { passkey }
    func displayPasskey(_ passkey: UInt32) async {
        displayed.withLock { $0.append(passkey) }
        await typing?(passkey)
    }
}

/// Every log record of a test, message and metadata, at every level.
final class LogText: Sendable {
    private let lines = Locked<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "harald.test") { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: String { lines.value.joined(separator: "\n") }

    private struct Handler: LogHandler {
        let sink: LogText
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.lines.withLock { $0.append("\(event.message) \(merged)") }
        }
    }
}

/// Pairing over Harald's HCI host stack with a real, independent Security Manager: Bumble's, in
/// Harald-SEC (scripts/bumble/secure_peer.py), on linked virtual controllers (scripts/integration
/// starts both). Each test configures the peer, opens a fresh backend with an in-memory bond store
/// and goes through the public API; attempts are on separate connections (Bumble does not pair a
/// second time on one link). Real time: the SMP timeout test takes 30 s.
@Suite(
    "Bumble integration: pairing with Bumble's Security Manager over the HCI backend", .serialized,
    .enabled(if: SecureBench.isConfigured, "set HARALD_SECURE_TRANSPORT and HARALD_SECURE_CONTROL_PORT (run scripts/integration)"))
struct PairingBumbleIntegrationTests {
    static let justWorks = PairingConfiguration()
    static let keyboard = PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections])
    static let yesNo = PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections])

    /// One bench session: a backend on the suite's controller with `bonds`, and its central.
    struct Session: Sendable {
        let backend: HCICentralBackend
        let central: Central

        init(
            bonds: InMemoryBondStore, pairing: PairingConfiguration = PairingBumbleIntegrationTests.justWorks,
            agent: any PairingAgent = AutomaticPairingAgent(), lostBond: LostBondPolicy = .fail, logger: Logger? = nil
        ) async throws {
            var configuration = HCIHost.Configuration()
            if let logger { configuration.logger = logger }
            backend = try await HCICentralBackend.open(
                transport: try #require(SecureBench.transport), configuration: configuration,
                security: HCISecurityConfiguration(bonds: bonds, pairing: pairing, agent: agent, lostBond: lostBond))
            // Longer than the SMP timeout, so a pairing that times out reports that, not the read.
            central = Central(backend: backend, defaultTimeout: .seconds(60))
        }

        func connect() async throws -> PeripheralConnection {
            try await central.connect(to: PeripheralIdentifier(address: SecureBench.address), timeout: .seconds(20))
        }

        /// Connects, reads `uuid` (which may pair or encrypt on the way), and disconnects.
        func read(_ uuid: BluetoothUUID, peer: SecurePeer) async throws -> (Result<[UInt8], BluetoothError>, LinkSecurity?) {
            // A bonded peer is encrypted before the first request: that failing ends the connection.
            let connection: PeripheralConnection
            do { connection = try await connect() } catch {
                try await peer.waitUntilDisconnected()
                return (.failure(BluetoothError(error)), nil)
            }
            let result: Result<[UInt8], BluetoothError>
            do {
                let characteristic = try await connection.characteristic(uuid, service: SecureBench.service)
                result = .success(try await connection.readRaw(characteristic))
            } catch {
                result = .failure(BluetoothError(error))
            }
            let security = await connection.security()
            await connection.disconnect()
            try await peer.waitUntilDisconnected()
            return (result, security)
        }

        func close() async { await backend.close() }
    }

    /// Runs `body` with a reset peer and a fresh session; closes the session whatever happens.
    static func withBench(
        bonds: InMemoryBondStore = InMemoryBondStore(), pairing: PairingConfiguration = justWorks,
        agent: any PairingAgent = AutomaticPairingAgent(), lostBond: LostBondPolicy = .fail, logger: Logger? = nil, seconds: Int = 120,
        peerSettings: [String: Any] = [:], _ body: @escaping @Sendable (Session, SecurePeer) async throws -> Void
    ) async throws {
        let peer = try SecurePeer()
        try await peer.reset()
        if !peerSettings.isEmpty { try await peer.configure(peerSettings) }
        let session = try await Session(bonds: bonds, pairing: pairing, agent: agent, lostBond: lostBond, logger: logger)
        do {
            try await withHangGuard(seconds: Double(seconds)) { try await body(session, peer) }
        } catch {
            await session.close()
            throw error
        }
        await session.close()
    }

    static let encryptedValue = Array("encrypted".utf8)
    static let guardedValue = Array("guarded".utf8)

    // MARK: LE Secure Connections

    @Test func secureConnectionsJustWorksPairsOnARefusedReadAndStoresTheBondUnderThePeersIdentity() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds) { session, peer in
            let (result, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try result.get() == Self.encryptedValue)
            #expect(security?.level == .encrypted)
            #expect(security?.isBonded == true)
            let status = try await peer.status()
            #expect(status.completed == 1)
            let bond = try #require(await bonds.allBonds().first)
            // The peer distributes the static random address it connects from: an identity the
            // connection proves.
            #expect(bond.identityAddress == status.identity)
            #expect(bond.identityAddress == SecureBench.address)
            #expect(bond.lastAddress == SecureBench.address)
            #expect(bond.isSecureConnections)
            #expect(!bond.isAuthenticated)
            #expect(bond.longTermKey?.ediv == 0 && bond.longTermKey?.rand == 0)
            // Bumble distributes an all-zero IRK, which is no IRK: none is kept.
            #expect(bond.peerIdentityResolvingKey == nil)
            // The peer keeps the same key, under the identity address we distributed.
            let stored = try await peer.bonds()
            #expect(stored.count == 1)
            #expect(stored.first?.address == (await bonds.localIdentity())?.address)
            #expect(stored.first?.longTermKey == bond.longTermKey?.key, "both sides derived the same LTK")
        }
    }

    @Test func secureConnectionsPasskeyEntryWithThePeerDisplayingAndOurAgentTyping() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 123_456),
            peerSettings: ["io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let (result, security) = try await session.read(SecureBench.guarded, peer: peer)
            #expect(try result.get() == Self.guardedValue)
            #expect(security?.level == .authenticatedSecureConnections)
            let status = try await peer.status()
            #expect(status.passkeyShown == 123_456)
            #expect(status.completed == 1)
            let bond = try #require(await bonds.allBonds().first)
            #expect(bond.isAuthenticated && bond.isSecureConnections)
        }
    }

    @Test func secureConnectionsNumericComparisonShowsOurAgentTheValueThePeerComputed() async throws {
        let agent = RecordingAgent()
        try await Self.withBench(pairing: Self.yesNo, agent: agent, peerSettings: ["io": "yesno", "mitm": true]) { session, peer in
            let (result, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try result.get() == Self.encryptedValue)
            #expect(security?.level == .authenticatedSecureConnections)
            let status = try await peer.status()
            let compared = try #require(status.comparison)
            #expect(agent.comparedValues == [UInt32(compared)])
            #expect(status.completed == 1)
        }
    }

    @Test func secureConnectionsPasskeyEntryWithUsDisplayingAndThePeerTyping() async throws {
        let peer = try SecurePeer()
        let agent = RecordingAgent { passkey in
            // The person reads our passkey and types it on the peer.
            _ = try? await peer.control.send(["op": "configure", "passkey": Int(passkey)])
        }
        let display = PairingConfiguration(ioCapability: .displayOnly, authReq: [.bonding, .mitm, .secureConnections])
        try await Self.withBench(
            pairing: display, agent: agent, peerSettings: ["io": "keyboard", "mitm": true, "passkey": NSNull()]
        ) { session, peer in
            let (result, security) = try await session.read(SecureBench.guarded, peer: peer)
            #expect(try result.get() == Self.guardedValue)
            #expect(security?.level == .authenticatedSecureConnections)
            #expect(agent.displayedPasskeys.count == 1)
            #expect(try await peer.status().completed == 1)
        }
    }

    @Test func numericComparisonRefusedByOurAgentFailsWithThatReason() async throws {
        let bonds = InMemoryBondStore()
        let agent = RecordingAgent(acceptsComparison: false)
        try await Self.withBench(bonds: bonds, pairing: Self.yesNo, agent: agent, peerSettings: ["io": "yesno", "mitm": true]) {
            session, peer in
            let (result, _) = try await session.read(SecureBench.encrypted, peer: peer)
            guard case .failure(.pairingFailed(let reason)) = result else {
                Issue.record("expected a pairing failure, got \(result)")
                return
            }
            #expect(reason.contains("Numeric Comparison Failed"), "\(reason)")
            #expect(agent.comparedValues.count == 1)
            #expect(try await peer.status().lastFailure == 0x0C)
            #expect(await bonds.allBonds().isEmpty)
        }
    }

    // MARK: LE legacy pairing

    @Test func legacyJustWorksPairsAndStoresThePeersDistributedKey() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, peerSettings: ["sc": false]) { session, peer in
            let (result, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try result.get() == Self.encryptedValue)
            #expect(security?.level == .encrypted)
            #expect(try await peer.status().completed == 1)
            let bond = try #require(await bonds.allBonds().first)
            #expect(!bond.isSecureConnections)
            // What we keep is the key the peer distributed, with its EDIV and Rand (Bumble: 0).
            let stored = try #require(try await peer.bonds().first)
            #expect(bond.longTermKey?.key == stored.longTermKey)
            #expect(bond.longTermKey?.ediv == 0 && bond.longTermKey?.rand == 0)
        }
    }

    @Test func aLegacyBondReencryptsWithThePeersDistributedKeyWithoutPairingAgain() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, peerSettings: ["sc": false]) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let (second, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try second.get() == Self.encryptedValue)
            #expect(security?.isBonded == true)
            #expect(try await peer.status().started == 1, "no second pairing")
        }
    }

    @Test func legacyPasskeyEntryWithThePeerDisplayingAndOurAgentTyping() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 123_456),
            peerSettings: ["sc": false, "io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let (result, security) = try await session.read(SecureBench.guarded, peer: peer)
            #expect(try result.get() == Self.guardedValue)
            #expect(security?.level == .authenticated)
            #expect(try await peer.status().completed == 1)
            let bond = try #require(await bonds.allBonds().first)
            #expect(bond.isAuthenticated && !bond.isSecureConnections)
        }
    }

    // MARK: Failures

    @Test func aWrongPasskeyFailsWithTheConfirmValueReasonAndStoresNoBond() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 654_321),
            peerSettings: ["io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let started = ContinuousClock.now
            let (result, security) = try await session.read(SecureBench.guarded, peer: peer)
            #expect(ContinuousClock.now - started < .seconds(30), "failed before the SMP timeout")
            guard case .failure(.pairingFailed(let reason)) = result else {
                Issue.record("expected a pairing failure, got \(result)")
                return
            }
            #expect(reason.contains("Confirm Value Failed"), "\(reason)")
            #expect(security?.level == SecurityLevel.none)
            #expect(await bonds.allBonds().isEmpty)
            #expect(try await peer.status().lastFailure == 0x04)
        }
    }

    @Test func aPeerThatNeverAnswersFailsPairingAtTheSMPTimeoutAndNothingMoreIsSent() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, seconds: 90, peerSettings: ["silent": true]) { session, peer in
            let started = ContinuousClock.now
            let connection = try await session.connect()
            let characteristic = try await connection.characteristic(SecureBench.encrypted, service: SecureBench.service)
            let error = await #expect(throws: BluetoothError.self) { try await connection.readRaw(characteristic) }
            let elapsed = ContinuousClock.now - started
            guard case .timeout(let operation, _)? = error else {
                Issue.record("expected the SMP timeout, got \(String(describing: error))")
                await connection.disconnect()
                return
            }
            #expect(operation == "pairing")
            #expect(elapsed >= .seconds(29) && elapsed < .seconds(45), "\(elapsed)")
            // No more SMP on this link: asking again fails at once, sending nothing.
            let again = ContinuousClock.now
            let refusal = await #expect(throws: BluetoothError.self) { try await connection.secure() }
            #expect(refusal == .pairingFailed("the SMP timeout passed on this link; pairing needs a new connection"))
            #expect(ContinuousClock.now - again < .seconds(5))
            // Only the Pairing Request reached the peer, and nothing follows the timeout.
            try await Task.sleep(for: .seconds(1))
            #expect(try await peer.status().smpReceived == [0x01])
            #expect(await bonds.allBonds().isEmpty)
            await connection.disconnect()
            try await peer.waitUntilDisconnected()
        }
    }

    // MARK: Bonds

    @Test func aReconnectionReencryptsWithTheStoredKeyWithoutPairingAgain() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            #expect(try await peer.status().completed == 1)

            let (second, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try second.get() == Self.encryptedValue)
            #expect(security?.isBonded == true)
            let status = try await peer.status()
            #expect(status.started == 1 && status.completed == 1, "no second pairing")
            #expect(await bonds.allBonds().count == 1)
        }
    }

    @Test func aPeerThatLostItsBondFailsWithThatErrorUnderTheFailPolicyAndTheBondIsKept() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, lostBond: .fail) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let bond = try #require(await bonds.allBonds().first)
            try await peer.forgetBonds()

            let (second, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(throws: BluetoothError.peerRemovedPairingInformation) { try second.get() }
            #expect(await bonds.allBonds() == [bond])
            #expect(try await peer.status().started == 1, "no second pairing")
        }
    }

    @Test func aPeerThatLostItsBondIsPairedAgainUnderThePairAgainPolicy() async throws {
        // Pairing again needs MITM protection: the peer displays a passkey our agent types.
        let bonds = InMemoryBondStore()
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 123_456), lostBond: .pairAgain,
            peerSettings: ["io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let old = try #require(await bonds.allBonds().first)
            try await peer.forgetBonds()

            let (second, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try second.get() == Self.encryptedValue)
            #expect(security?.isBonded == true)
            #expect(try await peer.status().completed == 2)
            let new = try #require(await bonds.allBonds().first)
            #expect(await bonds.allBonds().count == 1)
            #expect(new.longTermKey?.key != old.longTermKey?.key, "a new key")
        }
    }

    @Test func aPeerHoldingAnotherKeyDropsTheLinkAndFailsWithThatErrorUnderTheFailPolicy() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, lostBond: .fail) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let bond = try #require(await bonds.allBonds().first)
            try await peer.changeKeys()

            // Our LTK against the peer's other one: the controllers drop the link (MIC Failure).
            let (second, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(throws: BluetoothError.peerRemovedPairingInformation) { try second.get() }
            #expect(await bonds.allBonds() == [bond])
            #expect(try await peer.status().started == 1, "no second pairing")
        }
    }

    @Test func aPeerHoldingAnotherKeyIsPairedAgainWithMITMOnTheNextConnectionUnderThePairAgainPolicy() async throws {
        let bonds = InMemoryBondStore()
        // Passkey Entry: the peer displays 123456, which our agent types.
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 123_456), lostBond: .pairAgain,
            peerSettings: ["io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let old = try #require(await bonds.allBonds().first)
            try await peer.changeKeys()

            let (second, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(throws: BluetoothError.peerRemovedPairingInformation) { try second.get() }
            #expect(await bonds.allBonds() == [old.markedPeerRejectedKey()], "the bond is kept, marked: it is not used again")

            let (third, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try third.get() == Self.encryptedValue)
            #expect(security?.isBonded == true)
            #expect(security?.level ?? .none >= .authenticated)
            #expect(try await peer.status().completed == 2)
            let new = try #require(await bonds.allBonds().first)
            #expect(new.longTermKey?.key != old.longTermKey?.key)
            #expect(!new.peerRejectedKey)
        }
    }

    @Test func withoutBondingTheLinkIsEncryptedButNoBondIsStored() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, peerSettings: ["bonding": false]) { session, peer in
            let (result, security) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try result.get() == Self.encryptedValue)
            #expect(security?.level == .encrypted)
            #expect(security?.isBonded == false)
            #expect(try await peer.status().completed == 1)
            #expect(await bonds.allBonds().isEmpty)
        }
    }

    @Test func noKeyReachesTheLogsWhilePairingReencryptingAndPairingAgain() async throws {
        // Legacy pairing carries the most keys (STK, the peer's LTK with EDIV/Rand, IRKs); the
        // re-encryption hands the LTK to the controller; the lost bond is logged with its peer.
        let bonds = InMemoryBondStore()
        let logs = LogText()
        // Legacy Passkey Entry: pairing again under .pairAgain needs MITM protection.
        try await Self.withBench(
            bonds: bonds, pairing: Self.keyboard, agent: AutomaticPairingAgent(passkey: 123_456), lostBond: .pairAgain, logger: logs.logger,
            peerSettings: ["sc": false, "io": "display", "mitm": true, "passkey": 123_456]
        ) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            let old = try #require(await bonds.allBonds().first)
            let (second, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try second.get() == Self.encryptedValue)
            try await peer.forgetBonds()
            let (third, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try third.get() == Self.encryptedValue)
            let new = try #require(await bonds.allBonds().first)
            let identity = try #require(await bonds.localIdentity())

            #expect(logs.all.contains("the peer lost its bond"))
            let text = logs.all.uppercased().filter { $0.isHexDigit }
            // (Not the peer's IRK: Bumble's is all zeros.)
            let keys = [old.longTermKey?.key, new.longTermKey?.key, identity.identityResolvingKey.key]
            for key in keys.compactMap({ $0 }) {
                let octets = key.withUnsafeKeyBytes { Array($0) }
                for order in [octets, octets.reversed()] {
                    let hex = order.map { String(format: "%02X", $0) }.joined()
                    #expect(!text.contains(hex), "a key is in the logs")
                }
            }
        }
    }

    // MARK: Who starts it

    @Test func aSecurityRequestFromThePeerStartsPairing() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds, peerSettings: ["security_request": true]) { session, peer in
            let connection = try await session.connect()
            // No request of ours is refused: the Security Request alone gets the link paired.
            let status = try await peer.waitFor { $0.completed == 1 && $0.encrypted }
            #expect(status.completed == 1 && status.encrypted)
            #expect(status.smpReceived.first == 0x01, "we answered with a Pairing Request")
            let characteristic = try await connection.characteristic(SecureBench.encrypted, service: SecureBench.service)
            #expect(try await connection.readRaw(characteristic) == Self.encryptedValue)
            #expect(await bonds.allBonds().count == 1)
            await connection.disconnect()
            try await peer.waitUntilDisconnected()
            #expect(try await peer.status().started == 1)
        }
    }

    @Test func aSecurityRequestFromABondedPeerReencryptsWithTheStoredKey() async throws {
        let bonds = InMemoryBondStore()
        try await Self.withBench(bonds: bonds) { session, peer in
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            try await peer.configure(["security_request": true])

            let connection = try await session.connect()
            let status = try await peer.waitFor { $0.encrypted }
            #expect(status.encrypted)
            #expect(status.started == 1, "encrypted with the bond, no second pairing")
            #expect(await connection.security()?.isBonded == true)
            await connection.disconnect()
            try await peer.waitUntilDisconnected()
        }
    }

    @Test func aSecurityRequestForMITMOnALinkEncryptedWithAnUnauthenticatedBondPairsAgainWithPasskey() async throws {
        // The encrypted link is paired again (LE Enable Encryption on an encrypted link: Bumble's
        // controller answers Encryption Change, real ones Encryption Key Refresh Complete).
        let bonds = InMemoryBondStore()
        // A keyboard, no MITM asked for by us: Just Works while the peer asks for none either.
        let keyboard = PairingConfiguration(ioCapability: .keyboardOnly)
        try await Self.withBench(bonds: bonds, pairing: keyboard, agent: AutomaticPairingAgent(passkey: 123_456)) { session, peer in
            // Just Works first: the peer has no IO.
            let (first, _) = try await session.read(SecureBench.encrypted, peer: peer)
            #expect(try first.get() == Self.encryptedValue)
            #expect(await bonds.allBonds().first?.isAuthenticated == false)

            // The next link is encrypted with that bond, then the peer wants MITM protection.
            try await peer.configure(["io": "display", "mitm": true, "passkey": 123_456])
            let connection = try await session.connect()
            let characteristic = try await connection.characteristic(SecureBench.encrypted, service: SecureBench.service)
            #expect(try await connection.readRaw(characteristic) == Self.encryptedValue)
            #expect(await connection.security()?.level == .encrypted)
            _ = try await peer.control.send(["op": "security_request"])
            let status = try await peer.waitFor { $0.completed == 2 }
            #expect(status.completed == 2 && status.encrypted)
            #expect(try await Self.eventually { await connection.security()?.level == .authenticatedSecureConnections })
            #expect(await bonds.allBonds().first?.isAuthenticated == true)
            #expect(await bonds.allBonds().count == 1)
            await connection.disconnect()
            try await peer.waitUntilDisconnected()
        }
    }

    /// Polls `condition` (real time, up to 10 s).
    static func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func insufficientAuthenticationPairsAndRetriesTheReadOnce() async throws {
        try await Self.withBench { session, peer in
            let (result, _) = try await session.read(SecureBench.guarded, peer: peer)
            #expect(try result.get() == Self.guardedValue)
            let status = try await peer.status()
            #expect(status.started == 1 && status.completed == 1)
        }
    }

    @Test func insufficientEncryptionWhenPairingFailsIsReportedWithoutASecondAttempt() async throws {
        // The peer refuses to compare numbers: the refusal of the read leads to one pairing,
        // which fails, and that failure reaches the caller; no loop of attempts.
        try await Self.withBench(pairing: Self.yesNo, peerSettings: ["io": "yesno", "mitm": true, "accept_comparison": false]) {
            session, peer in
            let (result, _) = try await session.read(SecureBench.encrypted, peer: peer)
            guard case .failure(.pairingFailed) = result else {
                Issue.record("expected a pairing failure, got \(result)")
                return
            }
            let status = try await peer.status()
            #expect(status.started == 1)
            #expect(status.smpReceived.filter { $0 == 0x01 }.count == 1, "one Pairing Request")
        }
    }
}
