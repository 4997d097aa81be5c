import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldGATTLink
import HaraldSimulator
import Testing

/// A security manager that "pairs" by telling the simulated server the link is now encrypted,
/// and counts how often it was asked.
private actor ServerSideSecurity: LinkSecurityManager {
    let server: GATTServer
    let connection: GATTConnectionID
    let succeeds: Bool
    private(set) var requests: [ATTErrorCode] = []
    private var level = SecurityLevel.none

    init(server: GATTServer, connection: GATTConnectionID, succeeds: Bool) {
        self.server = server
        self.connection = connection
        self.succeeds = succeeds
    }

    func currentSecurity() async -> LinkSecurity { LinkSecurity(level: level, isBonded: level != .none, keySize: level == .none ? nil : 16) }

    func raiseSecurity(for code: ATTErrorCode, timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        requests.append(code)
        guard succeeds else { throw .backend("pairing failed: confirm value failed") }
        await server.setSecurity(GATTSecurity(isEncrypted: true, isAuthenticated: false), for: connection)
        level = .encrypted
        return await currentSecurity()
    }

    func pair(timeout: Duration) async throws(BluetoothError) -> LinkSecurity {
        try await raiseSecurity(for: .insufficientEncryption, timeout: timeout)
    }
}

@Suite("Raising security when the peripheral asks for it")
struct SecurityOnDemandTests {
    static let secret = BluetoothUUID(0xFFF1)

    /// A GATT connection over a simulated link to a server whose characteristic needs encryption.
    private func withProtectedValue<T: Sendable>(
        succeeds: Bool = true, raisesOnDemand: Bool = true,
        _ body: @escaping @Sendable (GATTConnection, DiscoveredCharacteristic, ServerSideSecurity) async throws -> T
    ) async throws -> T {
        let simulation = Simulation()
        let clock = simulation.clock
        return try await simulation.run {
            let server = try GATTServer(services: [
                GATTServiceDefinition(
                    uuid: BluetoothUUID(0xFFF0),
                    characteristics: [
                        GATTCharacteristicDefinition(
                            uuid: Self.secret, properties: [.read, .write], permissions: [.read, .readEncrypted, .write, .writeEncrypted], value: [0x2A])
                    ])
            ])
            let link = SimulatedLink(parameters: .typical, clock: clock)
            let serverConnection = await server.attach(SimulatedATTBearer(link: link, side: .peripheral))
            let security = ServerSideSecurity(server: server, connection: serverConnection, succeeds: succeeds)
            let connection = try await GATTConnection.open(
                bearer: SimulatedATTBearer(link: link, side: .central), peripheral: PeripheralIdentifier(rawValue: "secured"), clock: clock,
                securityManager: security, raisesSecurityOnDemand: raisesOnDemand)
            let services = try await connection.discoverServices([BluetoothUUID(0xFFF0)], timeout: .seconds(5))
            let characteristic = try #require(try await connection.discoverCharacteristics(nil, of: services[0], timeout: .seconds(5)).first)
            let result = try await body(connection, characteristic, security)
            await connection.disconnect()
            return result
        }
    }

    @Test func aReadRefusedForLackOfEncryptionIsRetriedOnceAfterSecuring() async throws {
        let (value, requests) = try await withProtectedValue { connection, characteristic, security in
            (try await connection.read(characteristic, timeout: .seconds(5)), await security.requests)
        }
        #expect(value == [0x2A])
        #expect(requests.count == 1)
        #expect(requests.first?.requiresPairing == true)
    }

    @Test func aWriteRefusedForLackOfEncryptionIsRetriedOnceAfterSecuring() async throws {
        let requests = try await withProtectedValue { connection, characteristic, security in
            try await connection.write([0x01], to: characteristic, kind: .withResponse, timeout: .seconds(5))
            return await security.requests
        }
        #expect(requests.count == 1)
    }

    @Test func whenSecuringFailsTheCallerGetsThatFailure() async throws {
        let error = try await withProtectedValue(succeeds: false) { connection, characteristic, _ in
            do {
                _ = try await connection.read(characteristic, timeout: .seconds(5))
                return nil as BluetoothError?
            } catch { return BluetoothError(error) }
        }
        #expect(error == .backend("pairing failed: confirm value failed"))
    }

    @Test func withRaisingTurnedOffTheRefusalReachesTheCaller() async throws {
        let (error, requests) = try await withProtectedValue(raisesOnDemand: false) { connection, characteristic, security in
            let refusal: BluetoothError?
            do {
                _ = try await connection.read(characteristic, timeout: .seconds(5))
                refusal = nil
            } catch { refusal = BluetoothError(error) }
            return (refusal, await security.requests)
        }
        guard case .attribute(let code, _) = error else { Issue.record("expected an ATT error, got \(String(describing: error))"); return }
        #expect(code.requiresPairing)
        #expect(requests.isEmpty)
    }

    @Test func securingOnRequestReportsTheNewLevel() async throws {
        let security = try await withProtectedValue { connection, _, _ in try await connection.secure(timeout: .seconds(5)) }
        #expect(security.level == .encrypted)
    }
}
