import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSMP
import HaraldSimulator
import Testing

/// A person at the central who types a fixed passkey and remembers the numbers shown to them.
private actor RecordingAgent: PairingAgent {
    let passkey: UInt32?
    let acceptsComparison: Bool
    private(set) var compared: [NumericComparisonValue] = []
    private(set) var justWorksConfirmations = 0

    init(passkey: UInt32? = nil, acceptsComparison: Bool = true) {
        self.passkey = passkey
        self.acceptsComparison = acceptsComparison
    }

    func confirmJustWorks() async -> Bool {
        justWorksConfirmations += 1
        return true
    }

    func confirmNumericComparison(_ value: NumericComparisonValue) async -> Bool {
        compared.append(value)
        return acceptsComparison
    }

    func enterPasskey() async -> UInt32? { passkey }
    func displayPasskey(_ passkey: UInt32) async {}
}

@Suite("Pairing in the simulator with Harald's Security Manager on both sides")
struct SimulatedPairingTests {
    static let device = BluetoothAddress("C4:00:00:00:00:01", kind: .random)!
    static let service = BluetoothUUID(0xFFE0)
    static let encrypted = BluetoothUUID(0xFFE1)
    static let authenticated = BluetoothUUID(0xFFE2)

    /// A device with one characteristic that needs encryption and one that needs authentication.
    static func lock(_ security: DeviceSecurity) -> VirtualPeripheral {
        VirtualPeripheral(address: device, advertisingData: .device(name: "Lock"), pairing: .securityManager(security)) { _ in
            PeripheralBehaviour(services: [
                GATTServiceDefinition(
                    uuid: service,
                    characteristics: [
                        GATTCharacteristicDefinition(uuid: encrypted, properties: [.read], permissions: [.read, .readEncrypted], value: [0x0E]),
                        GATTCharacteristicDefinition(uuid: authenticated, properties: [.read], permissions: [.read, .readAuthenticated], value: [0x0A]),
                    ])
            ])
        }
    }

    struct World: Sendable {
        let simulator: Simulator
        let central: Central
        let bonds: InMemoryBondStore
    }

    /// Runs `body` in a simulation whose central runs Harald's Security Manager with `agent`.
    private func inWorld<T: Sendable>(
        device security: DeviceSecurity, agent: any PairingAgent = AutomaticPairingAgent(), pairing: PairingConfiguration = PairingConfiguration(),
        lostBond: LostBondPolicy = .fail, _ body: @escaping @Sendable (World) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let bonds = InMemoryBondStore()
            let simulator = try Simulator(
                clock: clock, devices: [Self.lock(security)],
                security: SecurityConfiguration(bonds: bonds, pairing: pairing, agent: agent, lostBond: lostBond))
            let central = Central(backend: simulator.backend, clock: clock)
            return try await body(World(simulator: simulator, central: central, bonds: bonds))
        }
    }

    /// Connects, reads `uuid`, disconnects; returns the value and the link's security.
    private static func read(_ uuid: BluetoothUUID, in world: World) async throws -> ([UInt8], LinkSecurity?) {
        let connection = try await world.central.connect(to: PeripheralIdentifier(address: device), timeout: .seconds(5))
        let characteristic = try await connection.characteristic(uuid, service: service)
        let value = try await connection.readRaw(characteristic)
        let security = await connection.security()
        await connection.disconnect()
        return (value, security)
    }

    @Test func aLinksHandleGATTClientAndSecurityManagerShareOneSerialDomain() async throws {
        let shared = try await inWorld(device: DeviceSecurity()) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let gatt = try #require(connection.backend as? GATTConnection)
            let security = try #require(gatt.linkSecurity as? BondingLinkSecurity)
            // The link works as before on it: a read that needs pairing first.
            #expect(try await connection.readRaw(connection.characteristic(Self.encrypted, service: Self.service)) == [0x0E])
            await connection.disconnect()
            return connection.serialDomain === gatt.client.serialDomain && security.serialDomain === gatt.client.serialDomain
        }
        #expect(shared)
    }

    @Test func aReadRefusedForLackOfEncryptionPairsWithJustWorksAndKeepsTheBond() async throws {
        let (value, security, bonds) = try await inWorld(device: DeviceSecurity()) { world in
            let (value, security) = try await Self.read(Self.encrypted, in: world)
            return (value, security, try await world.central.bonds())
        }
        #expect(value == [0x0E])
        #expect(security?.level == .encrypted)
        #expect(security?.isBonded == true)
        #expect(bonds.map(\.identityAddress) == [Self.device])
        #expect(bonds.first?.isSecureConnections == true)
        #expect(bonds.first?.isAuthenticated == false)
    }

    @Test func aBondedCentralReEncryptsOnTheNextConnectionWithoutPairing() async throws {
        let (pairingsAfterFirst, pairingsAfterSecond, security) = try await inWorld(device: DeviceSecurity()) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            let first = world.simulator.pairingsServed(by: Self.device)
            let (_, security) = try await Self.read(Self.encrypted, in: world)
            return (first, world.simulator.pairingsServed(by: Self.device), security)
        }
        #expect(pairingsAfterFirst == 1)
        #expect(pairingsAfterSecond == 1)
        #expect(security?.level == .encrypted)
        #expect(security?.isBonded == true)
    }

    @Test func thePasskeyTheDeviceDisplaysAuthenticatesTheLink() async throws {
        let agent = RecordingAgent(passkey: 123_456)
        let (value, security) = try await inWorld(device: .displaying(123_456), agent: agent, pairing: PairingConfiguration(ioCapability: .keyboardOnly)) {
            try await Self.read(Self.authenticated, in: $0)
        }
        #expect(value == [0x0A])
        #expect(security?.level == .authenticatedSecureConnections)
    }

    @Test func aWrongPasskeyFailsPairingWithConfirmValueFailedAndStoresNoBond() async throws {
        let agent = RecordingAgent(passkey: 654_321)
        let (error, bonds) = try await inWorld(device: .displaying(123_456), agent: agent, pairing: PairingConfiguration(ioCapability: .keyboardOnly)) {
            world in
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.authenticated, in: world) }
            return (error, try await world.central.bonds())
        }
        guard case .pairingFailed(let reason)? = error else { Issue.record("expected pairingFailed, got \(String(describing: error))"); return }
        #expect(reason.lowercased().contains("confirm value failed"))
        #expect(bonds.isEmpty)
    }

    @Test func numericComparisonShowsTheCentralsPersonSixDigits() async throws {
        let agent = RecordingAgent()
        let device = DeviceSecurity(configuration: PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]))
        let (security, compared) = try await inWorld(device: device, agent: agent, pairing: PairingConfiguration(ioCapability: .displayYesNo)) { world in
            let (_, security) = try await Self.read(Self.authenticated, in: world)
            return (security, await agent.compared)
        }
        #expect(security?.level == .authenticatedSecureConnections)
        #expect(compared.count == 1)
        #expect(compared.first.map { $0.value <= 999_999 } == true)
    }

    @Test func refusingNumericComparisonFailsPairing() async throws {
        let agent = RecordingAgent(acceptsComparison: false)
        let device = DeviceSecurity(configuration: PairingConfiguration(ioCapability: .displayYesNo, authReq: [.bonding, .mitm, .secureConnections]))
        let error = try await inWorld(device: device, agent: agent, pairing: PairingConfiguration(ioCapability: .displayYesNo)) { world in
            await #expect(throws: BluetoothError.self) { try await Self.read(Self.authenticated, in: world) }
        }
        guard case .pairingFailed? = error else { Issue.record("expected pairingFailed, got \(String(describing: error))"); return }
    }

    @Test func legacyPairingBondsAndReEncryptsWithTheDistributedKey() async throws {
        let device = DeviceSecurity(configuration: PairingConfiguration(authReq: [.bonding]))
        let (bond, pairings, security) = try await inWorld(device: device) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            let (_, security) = try await Self.read(Self.encrypted, in: world)
            return (try await world.central.bonds().first, world.simulator.pairingsServed(by: Self.device), security)
        }
        #expect(bond?.isSecureConnections == false)
        #expect(pairings == 1)
        #expect(security?.isBonded == true)
    }

    @Test func aDeviceThatLostItsBondFailsTheNextConnectionWhenThePolicyIsToFail() async throws {
        let (error, bonds) = try await inWorld(device: DeviceSecurity(), lostBond: .fail) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            world.simulator.forgetBonds(of: Self.device)
            let error = await #expect(throws: BluetoothError.self) { try await Self.read(Self.encrypted, in: world) }
            return (error, try await world.central.bonds())
        }
        #expect(error == .peerRemovedPairingInformation)
        #expect(bonds.count == 1)
    }

    @Test func aDeviceThatLostItsBondIsPairedAgainWhenThePolicySaysSo() async throws {
        // Pairing again needs MITM protection (a Just Works pairing would let an impostor in).
        let (value, pairings, bonds) = try await inWorld(
            device: .displaying(123_456), agent: RecordingAgent(passkey: 123_456), pairing: PairingConfiguration(ioCapability: .keyboardOnly),
            lostBond: .pairAgain
        ) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            world.simulator.forgetBonds(of: Self.device)
            let (value, _) = try await Self.read(Self.encrypted, in: world)
            return (value, world.simulator.pairingsServed(by: Self.device), try await world.central.bonds())
        }
        #expect(value == [0x0E])
        #expect(pairings == 2)
        #expect(bonds.count == 1)
    }

    @Test func withoutBondingTheLinkIsEncryptedButNothingIsStored() async throws {
        let device = DeviceSecurity(configuration: PairingConfiguration(authReq: [.secureConnections]))
        let (security, bonds) = try await inWorld(device: device) { world in
            let (_, security) = try await Self.read(Self.encrypted, in: world)
            return (security, try await world.central.bonds())
        }
        #expect(security?.level == .encrypted)
        #expect(security?.isBonded == false)
        #expect(bonds.isEmpty)
    }

    @Test func pairOnDemandPairsBeforeAnyRefusalAndReplacesTheBond() async throws {
        // A second Just Works bond replaces the first only because the agent allows it.
        let agent = AutomaticPairingAgent(allowsWeakerBondReplacement: true)
        let (first, second, pairings) = try await inWorld(device: DeviceSecurity(), agent: agent) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let first = try await connection.pair()
            await connection.disconnect()
            let again = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let second = try await again.pair()
            await again.disconnect()
            return (first, second, world.simulator.pairingsServed(by: Self.device))
        }
        #expect(first.isBonded && second.isBonded)
        #expect(pairings == 2)
    }

    @Test func removingTheBondMakesTheNextProtectedReadPairAgain() async throws {
        let (removed, pairings) = try await inWorld(device: DeviceSecurity()) { world in
            _ = try await Self.read(Self.encrypted, in: world)
            let removed = try await world.central.removeBond(for: PeripheralIdentifier(address: Self.device))
            _ = try await Self.read(Self.encrypted, in: world)
            return (removed, world.simulator.pairingsServed(by: Self.device))
        }
        #expect(removed?.identityAddress == Self.device)
        #expect(pairings == 2)
    }

    @Test func twoReadsRefusedAtOnceStartOnePairing() async throws {
        let pairings = try await inWorld(device: DeviceSecurity()) { world in
            let connection = try await world.central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let characteristic = try await connection.characteristic(Self.encrypted, service: Self.service)
            try await withThrowingTaskGroup(of: [UInt8].self) { group in
                group.addTask { try await connection.readRaw(characteristic) }
                group.addTask { try await connection.readRaw(characteristic) }
                for try await _ in group {}
            }
            await connection.disconnect()
            return world.simulator.pairingsServed(by: Self.device)
        }
        #expect(pairings == 1)
    }

    @Test func aSimulatorWithoutASecurityManagerCannotPairOnDemand() async throws {
        let simulation = Simulation()
        let clock = simulation.clock
        let error = try await simulation.run {
            let simulator = try Simulator(clock: clock, devices: [Self.lock(DeviceSecurity())])
            let central = Central(backend: simulator.backend, clock: clock)
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.device), timeout: .seconds(5))
            let error = await #expect(throws: BluetoothError.self) { try await connection.pair() }
            await connection.disconnect()
            return error
        }
        guard case .unsupported? = error else { Issue.record("expected unsupported, got \(String(describing: error))"); return }
    }
}
