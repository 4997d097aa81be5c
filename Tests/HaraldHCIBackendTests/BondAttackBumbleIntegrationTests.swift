import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Testing

/// Where scripts/integration put the bond attackers, or nil when they are not running.
enum BondAttackBench {
    /// `tcp:127.0.0.1:PORT` of the controller reserved for this suite's central.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_BONDS_TRANSPORT"] }
    static var deviceControlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_BONDS_DEVICE_CONTROL_PORT"].flatMap { UInt16($0) } }
    static var claimerControlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_BONDS_CLAIMER_CONTROL_PORT"].flatMap { UInt16($0) } }
    static var isConfigured: Bool { transport != nil && deviceControlPort != nil && claimerControlPort != nil }

    /// The device the central bonds with (attack_bonds.py at this address).
    static let device = BluetoothAddress("C0:00:00:00:00:1D", kind: .random)!
    /// The device that claims `device`'s identity.
    static let claimer = BluetoothAddress("C0:00:00:00:00:1A", kind: .random)!
    static let service = BluetoothUUID("5EC0A001-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    static let open = BluetoothUUID("5EC0A002-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    static let encrypted = BluetoothUUID("5EC0A003-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    static let passkey: UInt32 = 123_456
}

/// One attacker's control channel (scripts/bumble/attack_bonds.py).
struct BondAttacker: Sendable {
    let control: ScenarioControlChannel

    struct Read: Sendable, Equatable {
        var uuid: String
        var encrypted: Bool
    }

    struct Status: Sendable {
        var started: Int
        var completed: Int
        var failed: Int
        var lastFailure: Int?
        var reads: [Read]
        var connected: Int
        var disconnections: [Int]
        var ltkRefused: Int
        var bonds: Int
    }

    init(port: UInt16?) throws { control = ScenarioControlChannel(port: try #require(port)) }

    func mode(_ mode: String) async throws { _ = try await control.send(["op": "mode", "mode": mode]) }
    func reset() async throws { _ = try await control.send(["op": "reset"]) }

    func status() async throws -> Status {
        let answer = try await control.send(["op": "status"])
        let reads = (answer["reads"] as? [[String: Any]] ?? []).map { Read(uuid: $0["uuid"] as? String ?? "", encrypted: $0["encrypted"] as? Bool ?? false) }
        return Status(
            started: answer["started"] as? Int ?? -1, completed: answer["completed"] as? Int ?? -1, failed: answer["failed"] as? Int ?? -1,
            lastFailure: answer["last_failure"] as? Int, reads: reads, connected: answer["connected"] as? Int ?? -1,
            disconnections: answer["disconnections"] as? [Int] ?? [], ltkRefused: answer["ltk_refused"] as? Int ?? -1,
            bonds: answer["bonds"] as? Int ?? -1)
    }

    /// Waits until `condition` holds (up to `seconds`); returns the last status.
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

/// The bond attacks of issue 25 against Harald's central over the HCI backend, by Bumble peers on
/// linked virtual controllers (scripts/integration starts them): a Just Works device that claims a
/// bonded device's identity (BLURtooth-style overwrite), the bonded device pairing again Just Works
/// to downgrade its MITM bond, and an impostor at a bonded device's address that has no key and
/// never asks for security (BLESA). Each test checks what the attacker saw on the air and what the
/// bond store holds. Real time; each test bonds first with Passkey Entry.
@Suite(
    "Bumble integration: bond attacks against the HCI central", .serialized,
    .enabled(if: BondAttackBench.isConfigured, "set HARALD_BONDS_TRANSPORT and the attackers' control ports (run scripts/integration)"))
struct BondAttackBumbleIntegrationTests {
    /// Our side types the passkey the honest device shows (it asks for MITM): an authenticated
    /// (level 4) bond. We do not ask for MITM ourselves, so a device without IO pairs Just Works.
    static let typing = PairingConfiguration(ioCapability: .keyboardOnly)

    struct Session: Sendable {
        let backend: HCICentralBackend
        let central: Central

        init(bonds: InMemoryBondStore, lostBond: LostBondPolicy = .fail) async throws {
            backend = try await HCICentralBackend.open(
                transport: try #require(BondAttackBench.transport),
                security: HCISecurityConfiguration(
                    bonds: bonds, pairing: BondAttackBumbleIntegrationTests.typing, agent: AutomaticPairingAgent(passkey: BondAttackBench.passkey),
                    lostBond: lostBond))
            central = Central(backend: backend, defaultTimeout: .seconds(60))
        }

        func connect(_ address: BluetoothAddress) async throws -> PeripheralConnection {
            try await central.connect(to: PeripheralIdentifier(address: address), timeout: .seconds(20))
        }

        /// Connects, reads `uuid`, disconnects; a failure to connect is the result too.
        func read(_ uuid: BluetoothUUID, from address: BluetoothAddress) async -> Result<[UInt8], BluetoothError> {
            let connection: PeripheralConnection
            do { connection = try await connect(address) } catch { return .failure(BluetoothError(error)) }
            let result: Result<[UInt8], BluetoothError>
            do {
                let characteristic = try await connection.characteristic(uuid, service: BondAttackBench.service)
                result = .success(try await connection.readRaw(characteristic))
            } catch {
                result = .failure(BluetoothError(error))
            }
            await connection.disconnect()
            return result
        }
    }

    /// Runs `body` with both attackers reset, the device honest, and a store holding an
    /// authenticated bond with the device (made here by reading its encrypted characteristic).
    static func withBondedDevice(
        lostBond: LostBondPolicy = .fail, _ body: @escaping @Sendable (Session, InMemoryBondStore, Bond, BondAttacker, BondAttacker) async throws -> Void
    ) async throws {
        let device = try BondAttacker(port: BondAttackBench.deviceControlPort)
        let claimer = try BondAttacker(port: BondAttackBench.claimerControlPort)
        try await device.mode("impostor")  // forgets the keys of an earlier test
        try await device.mode("honest")
        try await device.reset()
        try await claimer.mode("claim")
        try await claimer.reset()
        let bonds = InMemoryBondStore()
        let session = try await Session(bonds: bonds, lostBond: lostBond)
        do {
            try await withHangGuard(seconds: 120) {
                let first = await session.read(BondAttackBench.encrypted, from: BondAttackBench.device)
                #expect(try first.get() == Array("encrypted".utf8))
                let bond = try #require(await bonds.bond(for: BondAttackBench.device))
                #expect(bond.isAuthenticated, "the honest device paired with Passkey Entry")
                try await device.waitFor { $0.connected == 0 }
                try await device.reset()
                try await body(session, bonds, bond, device, claimer)
            }
        } catch {
            await session.backend.close()
            throw error
        }
        await session.backend.close()
    }

    @Test func aJustWorksDeviceClaimingTheBondedDevicesIdentityIsRefusedAndTheBondIsKept() async throws {
        try await Self.withBondedDevice { session, bonds, bond, _, claimer in
            let result = await session.read(BondAttackBench.encrypted, from: BondAttackBench.claimer)
            #expect(throws: BluetoothError.bondRefused(.identityNotProven(connectedFrom: BondAttackBench.claimer, claimed: BondAttackBench.device))) {
                try result.get()
            }
            let status = try await claimer.waitFor { $0.failed >= 1 }
            #expect(status.lastFailure == 0x0A, "Pairing Failed, Invalid Parameters, after its Identity Address Information")
            #expect(await bonds.allBonds() == [bond], "the real device's bond is untouched; nothing for the claimer")
        }
    }

    @Test func theBondedDevicePairingAgainJustWorksCannotDowngradeItsBond() async throws {
        try await Self.withBondedDevice { session, bonds, bond, device, _ in
            try await device.mode("downgrade")
            // It keeps its key, so the link re-encrypts first; then it is asked to pair, and
            // answers with Just Works.
            let connection = try await session.connect(BondAttackBench.device)
            let error = await #expect(throws: BluetoothError.self) { try await connection.pair() }
            await connection.disconnect()
            guard case .bondRefused(.weakerThanStoredBond(let existing, let replacement))? = error else {
                Issue.record("expected the weaker pairing to be refused, got \(String(describing: error))")
                return
            }
            #expect(existing.level == .authenticatedSecureConnections && replacement.level == .encrypted)
            let status = try await device.waitFor { $0.failed >= 1 }
            #expect(status.lastFailure == 0x08, "Pairing Failed, Unspecified Reason")
            #expect(await bonds.allBonds() == [bond])
        }
    }

    @Test func anImpostorWithoutTheKeyThatNeverAsksForSecurityIsNeverReadInClear() async throws {
        try await Self.withBondedDevice { session, bonds, bond, device, _ in
            try await device.mode("impostor")
            let result = await session.read(BondAttackBench.open, from: BondAttackBench.device)
            #expect(throws: BluetoothError.peerRemovedPairingInformation) { try result.get() }
            let status = try await device.waitFor { $0.connected == 0 && !$0.disconnections.isEmpty }
            #expect(status.reads.isEmpty, "nothing was read from the impostor")
            #expect(status.ltkRefused >= 1, "the central tried the bond's key first")
            #expect(status.disconnections.last == 0x05, "the central ended the link (Authentication Failure)")
            #expect(status.started == 0, "no pairing")
            #expect(await bonds.allBonds() == [bond])
        }
    }

    @Test func anOpenCharacteristicOfTheBondedDeviceIsReadOverAnEncryptedLink() async throws {
        try await Self.withBondedDevice { session, _, _, device, _ in
            let result = await session.read(BondAttackBench.open, from: BondAttackBench.device)
            #expect(try result.get() == Array("open".utf8))
            let status = try await device.waitFor { !$0.reads.isEmpty }
            #expect(status.reads == [.init(uuid: "5EC0A002-7A1D-4C3B-9E2F-1B0A5D6C7E8F", encrypted: true)])
        }
    }

    @Test func underThePairAgainPolicyAnImpostorCannotPairJustWorksInTheBondsPlace() async throws {
        try await Self.withBondedDevice(lostBond: .pairAgain) { session, bonds, bond, device, _ in
            try await device.mode("impostor")
            let result = await session.read(BondAttackBench.open, from: BondAttackBench.device)
            #expect(throws: BluetoothError.self) { try result.get() }
            let status = try await device.waitFor { $0.connected == 0 && !$0.disconnections.isEmpty }
            #expect(status.reads.isEmpty)
            #expect(status.completed == 0, "pairing again needed MITM, which the impostor's Just Works cannot give")
            #expect(await bonds.allBonds() == [bond])
        }
    }
}
