import Foundation
import Harald
import HaraldCodec
import HaraldCore
import HaraldHCI
import HaraldHCIBackend
import HaraldSMP
import Testing

/// The bond rules on Harald's HCI peripheral, against a hostile central over HCI: Harald's own
/// central, made hostile through its configuration (an identity in its bond store that is not
/// the address it connects from; a second central that takes a bonded central's identity and
/// address and pairs Just Works). Part of the Harald↔Harald suite, which runs one test at a time
/// on its two controllers.
extension HaraldPeripheralBumbleIntegrationTests {
    /// A central whose bond store holds `identity` and which connects from `address`.
    static func central(identity: LocalIdentity, address: BluetoothAddress, pairing: PairingConfiguration, passkey: UInt32? = nil)
        async throws -> (HCICentralBackend, Central, InMemoryBondStore)
    {
        let bonds = InMemoryBondStore(localIdentity: identity)
        var configuration = HCIHost.Configuration()
        configuration.randomAddress = address
        let backend = try await HCICentralBackend.open(
            transport: try #require(HaraldPair.centralTransport), configuration: configuration,
            security: SecurityConfiguration(bonds: bonds, pairing: pairing, agent: AutomaticPairingAgent(passkey: passkey)))
        return (backend, Central(backend: backend), bonds)
    }

    static func identity(_ address: String, irk: UInt8) throws -> LocalIdentity {
        try LocalIdentity(
            address: BluetoothAddress(address, kind: .random)!,
            identityResolvingKey: IdentityResolvingKey(key: SecretKey128(littleEndianBytes: Array(repeating: irk, count: 16))!))
    }

    /// The peripheral alone, advertising `name`, with `bonds`.
    static func peripheral(name: String, security: SecurityConfiguration) async throws -> (HCIPeripheral, AsyncStream<HCIPeripheral.Event>) {
        let peripheral = try await HCIPeripheral.open(transport: try #require(HaraldPair.peripheralTransport), services: services, security: security)
        let events = await peripheral.events()
        try await peripheral.advertise(LegacyAdvertising(data: .device(name: name, services: [service]), intervalMin: 32, intervalMax: 32))
        return (peripheral, events)
    }

    /// The reason of the first pairing failure the peripheral reports (within `seconds`), if any.
    static func firstPairingFailure(in events: AsyncStream<HCIPeripheral.Event>, within seconds: Int = 10) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                for await event in events { if case .pairingFailed(_, let reason) = event { return reason } }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    static func connect(_ central: Central, name: String) async throws -> PeripheralConnection {
        let found = try await central.scan(ScanRequest(namePrefix: name)).first(timeout: .seconds(10))
        return try await central.connect(to: found, timeout: .seconds(10))
    }

    @Test func theHCIPeripheralRefusesACentralWhoseIdentityItsConnectionDoesNotProve() async throws {
        let peripheralBonds = InMemoryBondStore()
        let (peripheral, events) = try await Self.peripheral(name: "Harald-B1", security: SecurityConfiguration(bonds: peripheralBonds))
        // The central names C1:…:01 as its identity but connects from C1:…:02.
        let claimed = try Self.identity("C1:00:00:00:B0:01", irk: 0x21)
        let (backend, central, _) = try await Self.central(
            identity: claimed, address: BluetoothAddress("C1:00:00:00:B0:02", kind: .random)!, pairing: PairingConfiguration())
        let connection = try await Self.connect(central, name: "Harald-B1")
        // Our central finishes its side; the peripheral refuses the keys after it and ends the
        // link. (The central's read may still be served in the moment between the encryption and
        // the key check: the server grants the level at the Encryption Change.)
        _ = try? await Self.read(Self.encrypted, on: connection)
        await connection.disconnect()
        let refusal = await Self.firstPairingFailure(in: events)
        await backend.close()
        await peripheral.close()
        #expect(refusal?.contains("identity") == true, "refusal: \(String(describing: refusal))")
        #expect(await peripheralBonds.allBonds().isEmpty, "nothing stored for the unproven identity")
    }

    @Test func theHCIPeripheralKeepsAnAuthenticatedBondWhenTheSameCentralPairsAgainJustWorks() async throws {
        let peripheralBonds = InMemoryBondStore()
        // It shows a passkey when a central asks for MITM, and pairs Just Works otherwise.
        let (peripheral, events) = try await Self.peripheral(
            name: "Harald-B2",
            security: SecurityConfiguration(
                bonds: peripheralBonds, pairing: PairingConfiguration(ioCapability: .displayOnly), agent: FixedPasskeyAgent(passkey: 271_828)))
        let identity = try Self.identity("C1:00:00:00:B0:03", irk: 0x31)
        // The real central bonds with Passkey Entry.
        let (first, firstCentral, _) = try await Self.central(
            identity: identity, address: identity.address,
            pairing: PairingConfiguration(ioCapability: .keyboardOnly, authReq: [.bonding, .mitm, .secureConnections]), passkey: 271_828)
        let honest = try await Self.connect(firstCentral, name: "Harald-B2")
        _ = try await honest.pair()
        #expect(try await Self.read(Self.authenticated, on: honest) == "guarded")
        await honest.disconnect()
        await first.close()
        let bond = try #require(await peripheralBonds.bond(for: identity.address))
        #expect(bond.isAuthenticated)

        // Another central at the same address and identity, without the key, pairs Just Works.
        let (second, secondCentral, _) = try await Self.central(identity: identity, address: identity.address, pairing: PairingConfiguration())
        let impostor = try await Self.connect(secondCentral, name: "Harald-B2")
        _ = try? await impostor.pair()  // its side completes; the peripheral refuses after it
        let refusal = await Self.firstPairingFailure(in: events)
        await impostor.disconnect()
        await second.close()
        await peripheral.close()
        #expect(refusal?.contains("weaker") == true, "refusal: \(String(describing: refusal))")
        #expect(await peripheralBonds.allBonds() == [bond], "the authenticated bond is kept")
    }
}
