import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Testing

/// Where scripts/integration put the bond attacker against Harald's peripheral, or nil when it is
/// not running.
enum PeripheralBondAttackBench {
    /// `tcp:127.0.0.1:PORT` of the controller of this suite's Harald peripheral.
    static var transport: String? { ProcessInfo.processInfo.environment["HARALD_PERIPHERAL_BONDS_TRANSPORT"] }
    /// The control port of the attacking central (scripts/bumble/attack_bonds_central.py).
    static var controlPort: UInt16? { ProcessInfo.processInfo.environment["HARALD_PERIPHERAL_BONDS_CONTROL_PORT"].flatMap { UInt16($0) } }
    static var isConfigured: Bool { transport != nil && controlPort != nil }

    /// The address Harald's peripheral advertises from.
    static let harald = "C0:00:00:00:00:3B"
    /// The honest central C1: its static random address is its identity.
    static let honest = BluetoothAddress("C0:00:00:00:00:3D", kind: .random)!
    /// The IRK C1 distributes (16 octets, hex).
    static let honestIRK = String(repeating: "3d", count: 16)
    /// The second central C2, which claims C1's identity.
    static let claimer = BluetoothAddress("C0:00:00:00:00:3E", kind: .random)!
    static let service = BluetoothUUID("5EC0B001-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    /// A characteristic whose reads need an encrypted link.
    static let sealed = BluetoothUUID("5EC0B002-7A1D-4C3B-9E2F-1B0A5D6C7E8F")
    static let sealedValue = Array("sealed".utf8)
    /// The passkey Harald's agent shows (Passkey Entry) and the honest central types.
    static let passkey: UInt32 = 314_159
}

/// The bond attacks of issue 25 against Harald's HCI peripheral (the `HCIPeripheral` behind
/// `harald serve`), by a Bumble central on a linked virtual controller (scripts/integration starts
/// it; scripts/bumble/attack_bonds_central.py says what each attack sends): a second central that
/// claims a bonded central's identity (BLURtooth-style overwrite), the bonded central pairing again
/// Just Works to downgrade its MITM bond, and an impostor at the bonded central's address that
/// tries to encrypt with made-up keys (BLESA). The peripheral keeps its bonds in a `FileBondStore`
/// in a fresh directory per test; each test first bonds the honest central with Passkey Entry,
/// then checks what the attacker saw on the air and what the bond file holds. Real time.
@Suite(
    "Bumble integration: bond attacks against the HCI peripheral", .serialized,
    .enabled(
        if: PeripheralBondAttackBench.isConfigured,
        "set HARALD_PERIPHERAL_BONDS_TRANSPORT and HARALD_PERIPHERAL_BONDS_CONTROL_PORT (run scripts/integration)"))
struct PeripheralBondAttackBumbleIntegrationTests {
    typealias Bench = PeripheralBondAttackBench

    /// What the attacker reported for one `pair` or `impostor` order.
    struct Report: Sendable, CustomStringConvertible {
        /// The Pairing Failed reason Harald sent, if any.
        var reason: Int?
        /// The SMP codes Harald sent on the link, in order.
        var received: [Int]
        /// The HCI status of the Encryption Change the impostor got (0: encrypted), if any.
        var encryption: Int?
        /// Whether Harald ended the link.
        var endedByPeer: Bool
        /// The reason of the disconnection, whoever ended the link.
        var disconnection: Int?
        /// The read's ATT status: "ok" or an error code as 0xNN; nil when nothing was read.
        var readStatus: String?
        /// The value read, hex, when the read succeeded.
        var readValue: String?
        var description: String

        init(_ answer: [String: Any]) {
            reason = answer["reason"] as? Int
            received = answer["received"] as? [Int] ?? []
            encryption = answer["encryption"] as? Int
            endedByPeer = answer["ended_by_peer"] as? Bool ?? false
            disconnection = answer["disconnection"] as? Int
            let read = answer["read"] as? [String: Any]
            readStatus = read?["status"] as? String
            readValue = read?["value"] as? String
            description = "\(answer)"
        }
    }

    /// What a test works with: the peripheral's bond file and events, and the attacker.
    struct Stage: Sendable {
        let bonds: FileBondStore
        let events: AsyncStream<HCIPeripheral.Event>
        let control: ScenarioControlChannel

        /// The attacker connects from `from` and pairs; see attack_bonds_central.py for the fields.
        func pair(from: BluetoothAddress, _ fields: [String: Any]) async throws -> Report {
            var request: [String: Any] = ["op": "pair", "address": Bench.harald, "from": from.string]
            request.merge(fields) { _, new in new }
            return Report(try await control.send(request))
        }

        /// The bond store's bonds, read again from the file (what a restarted `harald serve` would load).
        func bondsOnDisk() async throws -> [Bond] {
            try await FileBondStore(fileURL: bonds.fileURL).allBonds()
        }

        /// The bond of `identity` once the peripheral has stored it (up to 20 s: it stores after
        /// the pairing's end, which the central may see first).
        func storedBond(of identity: BluetoothAddress) async throws -> Bond? {
            for _ in 0..<400 {
                if let bond = try await bonds.bond(for: identity) { return bond }
                try await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }
    }

    /// A fresh Harald peripheral at ``PeripheralBondAttackBench/harald`` serving the sealed
    /// characteristic, with a bond file in a new directory; it shows the fixed passkey when a
    /// central asks for MITM and pairs Just Works otherwise. `body` runs after the honest central
    /// C1 has bonded with Passkey Entry and read the sealed value; it gets C1's bond.
    static func withBondedCentral(_ body: @escaping @Sendable (Stage, Bond) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("harald-peripheral-bonds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        // As `harald serve` keeps them: a bond file, resolving private addresses with the bonds' IRKs.
        let bonds = FileBondStore(fileURL: directory.appendingPathComponent("bonds.json")) { key, address in key.resolves(address) }
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = BluetoothAddress(Bench.harald, kind: .random)
        let services = [
            GATTServiceDefinition(
                uuid: Bench.service,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: Bench.sealed, properties: [.read], permissions: [.read, .readEncrypted], value: Bench.sealedValue)
                ])
        ]
        let peripheral = try await HCIPeripheral.open(
            transport: try #require(Bench.transport), services: services, configuration: configuration,
            security: SecurityConfiguration(
                bonds: bonds, pairing: PairingConfiguration(ioCapability: .displayOnly), agent: FixedPasskeyAgent(passkey: Bench.passkey)))
        let events = await peripheral.events()
        do {
            try await peripheral.advertise(
                LegacyAdvertising(data: .device(name: "Harald-PBA", services: []), intervalMin: 32, intervalMax: 32))
            let control = ScenarioControlChannel(port: try #require(Bench.controlPort))
            _ = try await control.send(["op": "forget"])  // no keys from an earlier test
            let bench = Stage(bonds: bonds, events: events, control: control)
            try await withHangGuard(seconds: 240) {
                let honest = try await bench.pair(
                    from: Bench.honest, ["mitm": true, "passkey": Bench.passkey, "irk": Bench.honestIRK, "read": Bench.sealed.uuidString])
                #expect(honest.reason == nil, "C1 paired: \(honest)")
                #expect(honest.readStatus == "ok" && honest.readValue == Self.hex(Bench.sealedValue), "C1 read the sealed value: \(honest)")
                let bond = try #require(try await bench.storedBond(of: Bench.honest), "a bond for C1: \(honest)")
                #expect(bond.isAuthenticated, "C1 paired with Passkey Entry")
                try await body(bench, bond)
            }
        } catch {
            await peripheral.close()
            throw error
        }
        await peripheral.close()
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// 16 random octets, hex: keys no one holds.
    static func randomHex(_ count: Int) -> String { hex((0..<count).map { _ in UInt8.random(in: 0...255) }) }

    /// The reason of the first pairing failure the peripheral reports (within 20 s), if any.
    static func firstPairingFailure(in events: AsyncStream<HCIPeripheral.Event>) async -> String? {
        await HaraldPeripheralBumbleIntegrationTests.firstPairingFailure(in: events, within: 20)
    }

    @Test func aSecondCentralClaimingABondedCentralsIdentityIsRefusedWithInvalidParameters() async throws {
        try await Self.withBondedCentral { bench, bond in
            // C2 pairs Just Works from its own address and names C1 as its identity, with an IRK
            // of its own (none could resolve the static address it connects from).
            let claim = try await bench.pair(
                from: Bench.claimer, ["identity": Bench.honest.string, "irk": Self.randomHex(16), "linger": 30])
            #expect(claim.reason == 0x0A, "Pairing Failed, Invalid Parameters, after its Identity Address Information: \(claim)")
            #expect(claim.received.filter { $0 == 0x05 }.count == 1, "one Pairing Failed ends the pairing: \(claim.received)")
            #expect(
                claim.endedByPeer && claim.disconnection == 0x05, "the peripheral ended the refused central's link (Authentication Failure): \(claim)")
            let refusal = await Self.firstPairingFailure(in: bench.events)
            #expect(refusal?.contains("identity") == true, "the peripheral reports the unproven identity: \(String(describing: refusal))")
            #expect(try await bench.bonds.allBonds() == [bond], "C1's bond is untouched; nothing for C2")
            #expect(try await bench.bondsOnDisk() == [bond], "and so is the bond file")
        }
    }

    @Test func aCentralFromAPrivateAddressClaimingABondedCentralsIdentityWithAnIRKThatDoesNotResolveItIsRefused() async throws {
        try await Self.withBondedCentral { bench, bond in
            // C2 connects from a resolvable private address of its own IRK and distributes C1's
            // identity with another IRK, which does not resolve that address.
            let ownIRK = Self.randomHex(16)
            let answer = try await bench.control.send([
                "op": "pair", "address": Bench.harald, "rpa_irk": ownIRK, "identity": Bench.honest.string,
                "irk": Self.randomHex(16), "linger": 30,
            ])
            let claim = Report(answer)
            #expect(claim.reason == 0x0A, "Pairing Failed, Invalid Parameters: \(claim)")
            #expect(claim.endedByPeer, "the peripheral ended the link: \(claim)")
            #expect(try await bench.bonds.allBonds() == [bond])
            #expect(try await bench.bondsOnDisk() == [bond])
        }
    }

    @Test func theBondedCentralPairingAgainJustWorksCannotDowngradeItsBond() async throws {
        try await Self.withBondedCentral { bench, bond in
            // C1 itself (same address, identity and IRK) pairs again, Just Works.
            let downgrade = try await bench.pair(from: Bench.honest, ["irk": Bench.honestIRK, "linger": 30])
            #expect(downgrade.reason == 0x08, "Pairing Failed, Unspecified Reason: \(downgrade)")
            #expect(downgrade.received.filter { $0 == 0x05 }.count == 1, "one Pairing Failed ends the pairing: \(downgrade.received)")
            #expect(
                downgrade.endedByPeer && downgrade.disconnection == 0x05,
                "the peripheral ended the link (Authentication Failure) rather than serve it at the weaker level: \(downgrade)")
            let refusal = await Self.firstPairingFailure(in: bench.events)
            #expect(refusal?.contains("weaker") == true, "refusal: \(String(describing: refusal))")
            let kept = try #require(try await bench.bonds.bond(for: Bench.honest))
            #expect(kept == bond && kept.isAuthenticated, "the authenticated bond is kept at its level")
            #expect(try await bench.bondsOnDisk() == [bond])
        }
    }

    @Test func anImpostorAtTheBondedCentralsAddressWithMadeUpKeysGetsANegativeReplyAndNoValue() async throws {
        try await Self.withBondedCentral { bench, bond in
            // Connects from C1's address, asks to encrypt with a key, EDIV and Rand of its own
            // making (a legacy-style key lookup that no bond answers), then reads the sealed value.
            let answer = try await bench.control.send([
                "op": "impostor", "address": Bench.harald, "from": Bench.honest.string, "ltk": Self.randomHex(16),
                "ediv": 0x2F1D, "rand": Self.randomHex(8), "read": Bench.sealed.uuidString,
            ])
            let impostor = Report(answer)
            #expect(impostor.encryption == 0x06, "LTK Request answered with a negative reply: PIN or Key Missing (0x06): \(impostor)")
            #expect(impostor.readValue == nil, "the sealed value was never read in clear: \(impostor)")
            #expect(impostor.readStatus == "0x0F" || impostor.readStatus == "0x05", "the read was refused for want of encryption: \(impostor)")
            #expect(try await bench.bonds.allBonds() == [bond])
        }
    }

    @Test func anImpostorUsingTheSecureConnectionsKeyLookupWithAMadeUpKeyLosesTheLinkAndReadsNothing() async throws {
        try await Self.withBondedCentral { bench, bond in
            // EDIV 0 and Rand 0 name the bond's LE Secure Connections key: the peripheral answers
            // with it, and the controllers' keys differ, so the link ends at the MIC check.
            let answer = try await bench.control.send([
                "op": "impostor", "address": Bench.harald, "from": Bench.honest.string, "ltk": Self.randomHex(16),
                "ediv": 0, "rand": String(repeating: "00", count: 8), "read": Bench.sealed.uuidString,
            ])
            let impostor = Report(answer)
            #expect(impostor.encryption != 0, "never encrypted with a key it made up: \(impostor)")
            #expect(impostor.readValue == nil, "nothing was read: \(impostor)")
            #expect(impostor.disconnection == 0x3D, "the link ended with MIC Failure: \(impostor)")
            #expect(try await bench.bonds.allBonds() == [bond])
        }
    }
}
