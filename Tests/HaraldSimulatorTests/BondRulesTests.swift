import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSMP
import HaraldSimulator
import Testing

/// The bond rules of issue 25 with Harald's Security Manager on both sides of the simulated link:
/// a claimed identity must be proven by the connection, no pairing overwrites another device's
/// bond or downgrades the same device's, a bonded peer is encrypted before its first request (an
/// impostor that cannot encrypt loses the link), and a peer cannot make a link pair again and again.
@Suite("Bond rules in the simulator: proven identity, no overwrite, no downgrade, encrypt bonded peers first")
struct BondRulesTests {
    static let device = BluetoothAddress("C4:00:00:00:00:0D", kind: .random)!
    static let attacker = BluetoothAddress("C4:00:00:00:00:0A", kind: .random)!
    static let service = BluetoothUUID(0xFFE0)
    static let open = BluetoothUUID(0xFFE3)
    static let encrypted = BluetoothUUID(0xFFE1)
    static let authenticated = BluetoothUUID(0xFFE2)
    static let passkey: UInt32 = 123_456

    /// A device at `address` with an open, an encrypted and an authenticated characteristic.
    static func lock(at address: BluetoothAddress = device, _ security: DeviceSecurity) -> VirtualPeripheral {
        VirtualPeripheral(address: address, advertisingData: .device(name: "Lock"), pairing: .securityManager(security)) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: open, properties: [.read], permissions: [.read], value: [0x09]),
                        GATTCharacteristicDefinition(uuid: encrypted, properties: [.read], permissions: [.read, .readEncrypted], value: [0x0E]),
                        GATTCharacteristicDefinition(uuid: authenticated, properties: [.read], permissions: [.read, .readAuthenticated], value: [0x0A]),
                    ])
            ])
        }
    }

    /// A device that shows a passkey and wants a MITM-protected bond.
    static let displaying = DeviceSecurity.displaying(passkey)
    /// A central that types the passkey the device shows.
    static let typing = PairingConfiguration(ioCapability: .keyboardOnly)

    struct World: Sendable {
        let simulator: Simulator
        let central: Central
        let bonds: InMemoryBondStore
    }

    /// Runs `body` in a new simulation with these devices, over `bonds` (a store that outlives
    /// the simulation, so a second world meets the bonds of the first).
    private static func inWorld<T: Sendable>(
        devices: [VirtualPeripheral], bonds: InMemoryBondStore, pairing: PairingConfiguration = PairingConfiguration(),
        agent: any PairingAgent = AutomaticPairingAgent(passkey: passkey), lostBond: LostBondPolicy = .fail,
        encryptsBondedPeersFirst: Bool = true, _ body: @escaping @Sendable (World) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let simulator = try Simulator(
                clock: clock, devices: devices,
                security: SecurityConfiguration(
                    bonds: bonds, pairing: pairing, agent: agent, lostBond: lostBond, encryptsBondedPeersFirst: encryptsBondedPeersFirst))
            let central = Central(backend: simulator.backend, clock: clock)
            return try await body(World(simulator: simulator, central: central, bonds: bonds))
        }
    }

    /// Connects to `address`, reads `uuid`, disconnects; the value and the link's security.
    private static func read(_ uuid: BluetoothUUID, from address: BluetoothAddress = device, in world: World) async throws -> (
        [UInt8], LinkSecurity?
    ) {
        let connection = try await world.central.connect(to: PeripheralIdentifier(address: address), timeout: .seconds(5))
        do {
            let characteristic = try await connection.characteristic(uuid, service: service)
            let value = try await connection.readRaw(characteristic)
            let security = await connection.security()
            await connection.disconnect()
            return (value, security)
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    /// A store holding the bond a first world made with the device (`security`, over `pairing`).
    private static func bonded(
        _ security: DeviceSecurity, pairing: PairingConfiguration = PairingConfiguration(), reading uuid: BluetoothUUID = encrypted
    ) async throws -> (InMemoryBondStore, Bond) {
        let bonds = InMemoryBondStore()
        let bond = try await inWorld(devices: [lock(security)], bonds: bonds, pairing: pairing) { world in
            _ = try await read(uuid, in: world)
            return try #require(await world.bonds.allBonds().first)
        }
        return (bonds, bond)
    }

    // MARK: 1, 2. A claimed identity must be proven; another device's bond is never overwritten

    @Test func aJustWorksDeviceClaimingABondedDevicesIdentityIsRefusedAndTheBondIsKept() async throws {
        let (bonds, bond) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        #expect(bond.isAuthenticated)
        // Another device pairs Just Works and distributes the bonded device's identity address.
        let impostorIdentity = try LocalIdentity(
            address: Self.device, identityResolvingKey: IdentityResolvingKey(key: SecretKey128(littleEndianBytes: Array(repeating: 0x5A, count: 16))!))
        let attacker = Self.lock(at: Self.attacker, DeviceSecurity(distributedIdentity: impostorIdentity))
        let (error, after) = try await Self.inWorld(devices: [Self.lock(Self.displaying), attacker], bonds: bonds, pairing: Self.typing) { world in
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.encrypted, from: Self.attacker, in: world) }
            return (error, await world.bonds.allBonds())
        }
        #expect(error == .bondRefused(.identityNotProven(connectedFrom: Self.attacker, claimed: Self.device)))
        #expect(after == [bond], "the bonded device's bond is untouched and nothing is stored for the attacker")
    }

    @Test func theBondedDeviceStillReEncryptsAfterTheRefusedClaim() async throws {
        let impostorIdentity = try LocalIdentity(
            address: Self.device, identityResolvingKey: IdentityResolvingKey(key: SecretKey128(littleEndianBytes: Array(repeating: 0x11, count: 16))!))
        let attacker = Self.lock(at: Self.attacker, DeviceSecurity(distributedIdentity: impostorIdentity))
        let (security, pairings, bonds) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity()), attacker], bonds: InMemoryBondStore()) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            await #expect(throws: BluetoothError.self) { try await Self.read(Self.encrypted, from: Self.attacker, in: world) }
            let (_, security) = try await Self.read(Self.encrypted, in: world)
            return (security, world.simulator.pairingsServed(by: Self.device), await world.bonds.allBonds())
        }
        #expect(security?.isBonded == true)
        #expect(pairings == 1, "the device's later read re-encrypted with its bond")
        #expect(bonds.map(\.identityAddress) == [Self.device] && bonds.first?.lastAddress == Self.device)
    }

    // MARK: 3. No downgrade of the same device's bond

    @Test func aJustWorksPairingNeverReplacesAnAuthenticatedBondOfTheSameDevice() async throws {
        let (bonds, bond) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        // An impostor at the device's address that pairs Just Works, asked to pair explicitly.
        let (error, after) = try await Self.inWorld(
            devices: [Self.lock(DeviceSecurity())], bonds: bonds, pairing: Self.typing, encryptsBondedPeersFirst: false
        ) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let error = await #expect(throws: BluetoothError.self) { try await connection.pair() }
            await connection.disconnect()
            return (error, await world.bonds.allBonds())
        }
        let existing = bond.strength
        let replacement = BondStrength(identityAddress: Self.device, level: .encrypted, keySize: 16)
        #expect(error == .bondRefused(.weakerThanStoredBond(existing: existing, replacement: replacement)))
        #expect(after == [bond])
    }

    @Test func anUnauthenticatedPairingNeverReplacesEvenAnUnauthenticatedBond() async throws {
        let (bonds, bond) = try await Self.bonded(DeviceSecurity())
        let (error, after) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds, encryptsBondedPeersFirst: false) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let error = await #expect(throws: BluetoothError.self) { try await connection.pair() }
            await connection.disconnect()
            return (error, await world.bonds.allBonds())
        }
        guard case .bondRefused(.weakerThanStoredBond)? = error else { Issue.record("expected a refused bond, got \(String(describing: error))"); return }
        #expect(after == [bond])
    }

    /// An agent that records what it was asked about a replacement and answers `allows`.
    private actor ReplacementAgent: PairingAgent {
        let allows: Bool
        private(set) var asked: [(BondStrength, BondStrength)] = []
        init(allows: Bool) { self.allows = allows }
        func confirmJustWorks() async -> Bool { true }
        func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool { true }
        func enterPasskey() async -> UInt32? { BondRulesTests.passkey }
        func displayPasskey(_ passkey: UInt32) async {}
        func confirmBondReplacement(existing: BondStrength, replacement: BondStrength) async -> Bool {
            asked.append((existing, replacement))
            return allows
        }
        var questions: Int { asked.count }
        var lastLevels: (SecurityLevel, SecurityLevel)? { asked.last.map { ($0.0.level, $0.1.level) } }
    }

    @Test func theAgentCanConfirmAWeakerReplacementAndIsToldBothLevels() async throws {
        let (bonds, _) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        let agent = ReplacementAgent(allows: true)
        let (security, after, levels) = try await Self.inWorld(
            devices: [Self.lock(DeviceSecurity())], bonds: bonds, pairing: Self.typing, agent: agent, encryptsBondedPeersFirst: false
        ) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let security = try await connection.pair()
            await connection.disconnect()
            return (security, await world.bonds.allBonds(), await agent.lastLevels)
        }
        #expect(security.isBonded)
        #expect(after.count == 1 && after.first?.isAuthenticated == false, "the person agreed: the weaker bond replaced it")
        #expect(levels?.0 == .authenticatedSecureConnections && levels?.1 == .encrypted)
    }

    @Test func anAuthenticatedPairingAtTheSameLevelReplacesTheBondWithoutAsking() async throws {
        let (bonds, old) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        let agent = ReplacementAgent(allows: false)
        let (after, questions) = try await Self.inWorld(
            devices: [Self.lock(Self.displaying)], bonds: bonds, pairing: Self.typing, agent: agent, encryptsBondedPeersFirst: false
        ) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            _ = try await connection.pair()
            await connection.disconnect()
            return (await world.bonds.allBonds(), await agent.questions)
        }
        #expect(after.count == 1 && after.first?.longTermKey != old.longTermKey)
        #expect(questions == 0)
    }

    // MARK: 5. Encrypt bonded peers first (BLESA)

    @Test func anOpenCharacteristicOfABondedPeerIsReadOverAnEncryptedLink() async throws {
        let bonds = InMemoryBondStore()
        let (first, second, pairings) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            let (_, first) = try await Self.read(Self.open, in: world)
            let (_, second) = try await Self.read(Self.open, in: world)
            return (first, second, world.simulator.pairingsServed(by: Self.device))
        }
        #expect(first?.level == .encrypted && first?.isBonded == true)
        #expect(second?.level == .encrypted && second?.isBonded == true)
        #expect(pairings == 1)
    }

    @Test func anImpostorWithoutTheKeyThatNeverAsksForSecurityLosesTheLinkUnderTheFailPolicy() async throws {
        let (bonds, bond) = try await Self.bonded(DeviceSecurity())
        // A new world: the device at the bonded address has no key (an impostor, or a reset device).
        let (error, pairings, after) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds, lostBond: .fail) { world in
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.open, in: world) }
            return (error, world.simulator.pairingsServed(by: Self.device), await world.bonds.allBonds())
        }
        #expect(error == .peerRemovedPairingInformation, "the connection fails before any read")
        #expect(pairings == 0)
        #expect(after == [bond])
    }

    @Test func turningEncryptFirstOffReadsOpenCharacteristicsInClear() async throws {
        let (bonds, _) = try await Self.bonded(DeviceSecurity())
        let security = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds, encryptsBondedPeersFirst: false) { world in
            try await Self.read(Self.open, in: world).1
        }
        #expect(security?.level == SecurityLevel.none)
    }

    @Test func underThePairAgainPolicyAnImpostorWithoutTheKeyCannotPairJustWorks() async throws {
        let (bonds, bond) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        // The impostor pairs Just Works only: pairing again needs MITM, so it fails and the link ends.
        let (error, after) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds, pairing: Self.typing, lostBond: .pairAgain) {
            world in
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.open, in: world) }
            return (error, await world.bonds.allBonds())
        }
        guard case .pairingFailed? = error else { Issue.record("expected a failed MITM pairing, got \(String(describing: error))"); return }
        #expect(after == [bond])
    }

    @Test func underThePairAgainPolicyWithoutIOForMITMNothingIsAttemptedAndTheLinkEnds() async throws {
        let (bonds, bond) = try await Self.bonded(DeviceSecurity())
        let (error, pairings, after) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: bonds, lostBond: .pairAgain) { world in
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.open, in: world) }
            return (error, world.simulator.pairingsServed(by: Self.device), await world.bonds.allBonds())
        }
        #expect(error == .securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(IOCapability.noInputNoOutput)", needed: .authenticated)))
        #expect(pairings == 0)
        #expect(after == [bond])
    }

    @Test func underThePairAgainPolicyTheRealDeviceThatLostItsKeysPairsAgainWithMITM() async throws {
        let (bonds, old) = try await Self.bonded(Self.displaying, pairing: Self.typing, reading: Self.authenticated)
        let (value, after) = try await Self.inWorld(devices: [Self.lock(Self.displaying)], bonds: bonds, pairing: Self.typing, lostBond: .pairAgain) {
            world in
            (try await Self.read(Self.authenticated, in: world).0, await world.bonds.allBonds())
        }
        #expect(value == [0x0A])
        #expect(after.count == 1 && after.first?.isAuthenticated == true && after.first?.longTermKey != old.longTermKey)
    }

    // MARK: 6. No endless re-pairing

    @Test func aPeerThatKeepsRefusingCannotMakeTheLinkPairAgain() async throws {
        // The device pairs Just Works only but its value needs authentication: one pairing, then
        // the refusal on the encrypted link does not start another.
        let (errors, pairings) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: InMemoryBondStore(), pairing: Self.typing) {
            world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let characteristic = try await connection.characteristic(Self.authenticated, service: Self.service)
            var errors: [BluetoothError] = []
            for _ in 0..<3 {
                do { _ = try await connection.readRaw(characteristic) } catch { errors.append(BluetoothError(error)) }
            }
            await connection.disconnect()
            return (errors, world.simulator.pairingsServed(by: Self.device))
        }
        #expect(pairings == 1)
        #expect(errors.count == 3)
        #expect(errors.dropFirst().allSatisfy { $0 == .securityNotRaised(.alreadyRaisedOnThisLink(current: .encrypted)) })
    }

    @Test func withoutIOForMITMAnEncryptedLinkIsNotPairedAgainForAuthentication() async throws {
        let (errors, pairings) = try await Self.inWorld(devices: [Self.lock(DeviceSecurity())], bonds: InMemoryBondStore()) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let characteristic = try await connection.characteristic(Self.authenticated, service: Self.service)
            var errors: [BluetoothError] = []
            for _ in 0..<2 {
                do { _ = try await connection.readRaw(characteristic) } catch { errors.append(BluetoothError(error)) }
            }
            await connection.disconnect()
            return (errors, world.simulator.pairingsServed(by: Self.device))
        }
        #expect(pairings == 1)
        #expect(errors.last == .securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(IOCapability.noInputNoOutput)", needed: .authenticated)))
    }
}
