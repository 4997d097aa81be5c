import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Testing

/// The HCI backend securing links with stored bonds, over the in-process controller.
@Suite("HCI backend: encrypting bonded links on demand")
struct LinkSecurityTests {
    static let peerAddress = BluetoothAddress("C0:5E:C0:00:00:01", kind: .random)!
    static let service = BluetoothUUID(0xFFF0)
    static let secret = BluetoothUUID(0xFFF1)
    static let key = SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x30 + $0) })!

    /// A peer whose one characteristic needs an encrypted link; `peerKey` is the LTK it holds for us.
    static func peer(holding peerKey: SecretKey128?) throws -> VirtualPeer {
        let server = try GATTServer(services: [
            GATTServiceDefinition(
                uuid: service,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: secret, properties: [.read], permissions: [.read, .readEncrypted], value: [0x42])
                ])
        ])
        var peer = VirtualPeer(address: peerAddress, advertisingData: [], server: server)
        peer.longTermKey = peerKey
        return peer
    }

    static func bond() throws -> Bond {
        try Bond(
            identityAddress: peerAddress, lastAddress: peerAddress,
            longTermKey: LongTermKey(key: key, keySize: 16, isAuthenticated: false, isSecureConnections: true),
            localLongTermKey: nil, peerIdentityResolvingKey: nil, peerSignatureKey: nil, localSignatureKey: nil, keySize: 16,
            isAuthenticated: false, isSecureConnections: true, createdAt: Date(timeIntervalSince1970: 0))
    }

    /// Reads the protected characteristic through the public API from a peer holding `peerKey`;
    /// returns the value or the error, and the link's security afterwards.
    static func readSecret(peerKey: SecretKey128?, lostBond: LostBondPolicy = .fail, bonds: InMemoryBondStore) async throws
        -> (Result<[UInt8], BluetoothError>, LinkSecurity?)
    {
        // A bonded peer is encrypted before the first request: a failure ends the connection.
        let outcome = try await connectAndRead(try peer(holding: peerKey), security: HCISecurityConfiguration(bonds: bonds, lostBond: lostBond))
        return (outcome.result, outcome.security)
    }

    @Test func aBondedPeerIsEncryptedWithTheStoredKeyWhenItRefusesARead() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let (result, security) = try await Self.readSecret(peerKey: Self.key, bonds: bonds)
        #expect(try result.get() == [0x42])
        #expect(security?.level == .encrypted)
        #expect(security?.isBonded == true)
        #expect(security?.keySize == 16)
    }

    @Test func aPeerThatLostItsBondFailsWithThatErrorAndTheBondIsKept() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let (result, _) = try await Self.readSecret(peerKey: nil, lostBond: .fail, bonds: bonds)
        #expect(throws: BluetoothError.peerRemovedPairingInformation) { try result.get() }
        #expect(await bonds.allBonds().count == 1)
    }

    @Test func aPeerHoldingAnotherKeyDropsTheLinkAndFailsWithTheLostBondErrorAndTheBondIsKept() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let other = SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x80 + $0) })!
        let (result, _) = try await Self.readSecret(peerKey: other, lostBond: .fail, bonds: bonds)
        #expect(throws: BluetoothError.peerRemovedPairingInformation) { try result.get() }
        #expect(await bonds.allBonds().count == 1)
    }

    @Test func aPeerHoldingAnotherKeyHasItsBondMarkedNotDeletedUnderThePairAgainPolicy() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let other = SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x80 + $0) })!
        let (result, _) = try await Self.readSecret(peerKey: other, lostBond: .pairAgain, bonds: bonds)
        #expect(throws: BluetoothError.peerRemovedPairingInformation) { try result.get() }
        // Deleted, the bond would let the next connection pair Just Works in its place.
        #expect(await bonds.allBonds() == [try Self.bond().markedPeerRejectedKey()])
    }

    /// Connects once with `security` to `peer` and reads the protected characteristic.
    static func connectAndRead(_ peer: VirtualPeer, security: SecurityConfiguration) async throws
        -> (result: Result<[UInt8], BluetoothError>, security: LinkSecurity?, pairingsStarted: Int)
    {
        let controller = VirtualController(peers: [peer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock(), security: security)
        let central = Central(backend: backend, clock: ManualClock())
        let outcome = try await withHangGuard(seconds: 120) { () -> (Result<[UInt8], BluetoothError>, LinkSecurity?) in
            let connection: PeripheralConnection
            do { connection = try await central.connect(to: PeripheralIdentifier(address: peerAddress), timeout: .seconds(30)) } catch {
                return (.failure(BluetoothError(error)), nil)
            }
            let characteristic = try await connection.characteristic(secret, service: service)
            let result: Result<[UInt8], BluetoothError>
            do { result = .success(try await connection.readRaw(characteristic)) } catch { result = .failure(BluetoothError(error)) }
            let security = await connection.security()
            await connection.disconnect()
            return (result, security)
        }
        await backend.close()
        return (outcome.0, outcome.1, controller.pairingsStarted)
    }

    /// A peer at the bonded address that holds no key and pairs with `ioCapability` (Secure
    /// Connections, bonding, Harald's responder answering on its own).
    static func pairablePeer(ioCapability: IOCapability) throws -> VirtualPeer {
        var peer = try peer(holding: nil)
        peer.pairing = PairingConfiguration(ioCapability: ioCapability)
        return peer
    }

    @Test func afterARejectedKeyTheNextConnectionNeverPairsJustWorksInTheBondsPlace() async throws {
        let marked = try Self.bond().markedPeerRejectedKey()
        let bonds = InMemoryBondStore(bonds: [marked])
        // We could authenticate; the peer at the bonded address offers only Just Works.
        let security = SecurityConfiguration(
            bonds: bonds, pairing: PairingConfiguration(ioCapability: .keyboardDisplay), agent: AutomaticPairingAgent(passkey: 123_456),
            lostBond: .pairAgain)
        let outcome = try await Self.connectAndRead(try Self.pairablePeer(ioCapability: .noInputNoOutput), security: security)
        // Refused by MITM being required, before any key: not only by the bond rules afterwards.
        #expect(throws: BluetoothError.pairingFailed("\(PairingFailureReason.authenticationRequirements)")) { try outcome.result.get() }
        #expect(outcome.pairingsStarted == 1, "a pairing was tried, with MITM required")
        #expect(await bonds.allBonds() == [marked], "the Just Works pairing replaced nothing")
    }

    @Test func afterARejectedKeyIOThatCannotAuthenticateStartsNoPairing() async throws {
        let marked = try Self.bond().markedPeerRejectedKey()
        let bonds = InMemoryBondStore(bonds: [marked])
        let outcome = try await Self.connectAndRead(
            try Self.pairablePeer(ioCapability: .keyboardDisplay), security: SecurityConfiguration(bonds: bonds, lostBond: .pairAgain))
        #expect(
            throws: BluetoothError.securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(IOCapability.noInputNoOutput)", needed: .authenticated))
        ) { try outcome.result.get() }
        #expect(outcome.pairingsStarted == 0)
        #expect(await bonds.allBonds() == [marked])
    }

    @Test func afterARejectedKeyAnAuthenticatedPairingReplacesTheBond() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond().markedPeerRejectedKey()])
        let security = SecurityConfiguration(
            bonds: bonds, pairing: PairingConfiguration(ioCapability: .keyboardDisplay), agent: AutomaticPairingAgent(), lostBond: .pairAgain)
        // Both sides display and confirm: Numeric Comparison, which protects against MITM.
        let outcome = try await Self.connectAndRead(try Self.pairablePeer(ioCapability: .keyboardDisplay), security: security)
        #expect(try outcome.result.get() == [0x42])
        #expect(outcome.security?.level == .authenticatedSecureConnections)
        #expect(outcome.pairingsStarted == 1)
        let bond = try #require(await bonds.bond(for: Self.peerAddress))
        #expect(!bond.peerRejectedKey)
        #expect(bond.isAuthenticated)
    }

    @Test func underTheFailPolicyAMarkedBondEndsTheLinkWithoutPairing() async throws {
        let marked = try Self.bond().markedPeerRejectedKey()
        let bonds = InMemoryBondStore(bonds: [marked])
        let outcome = try await Self.connectAndRead(
            try Self.pairablePeer(ioCapability: .noInputNoOutput), security: SecurityConfiguration(bonds: bonds, lostBond: .fail))
        #expect(throws: BluetoothError.peerRemovedPairingInformation) { try outcome.result.get() }
        #expect(outcome.pairingsStarted == 0)
        #expect(await bonds.allBonds() == [marked])
    }

    @Test func withThePairAgainPolicyAndNoIOForMITMNothingIsAttemptedAndTheBondIsKept() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let (result, _) = try await Self.readSecret(peerKey: nil, lostBond: .pairAgain, bonds: bonds)
        // Pairing again needs MITM protection, which NoInputNoOutput cannot give: the link ends.
        #expect(await bonds.allBonds().count == 1)
        #expect(
            throws: BluetoothError.securityNotRaised(.ioCapabilityCannotAuthenticate(ioCapability: "\(IOCapability.noInputNoOutput)", needed: .authenticated))
        ) { try result.get() }
    }

    @Test func withoutABondARefusalStartsPairingAndItsFailureReachesTheCaller() async throws {
        let bonds = InMemoryBondStore()
        let (result, security) = try await Self.readSecret(peerKey: Self.key, bonds: bonds)
        #expect(throws: BluetoothError.pairingFailed("the peer refused: Pairing Not Supported (0x05)")) { try result.get() }
        #expect(security?.level == SecurityLevel.none)
        #expect(await bonds.allBonds().isEmpty)
    }

    @Test func aPeerWithoutABondIsPairedWithLESecureConnectionsAndTheBondIsStored() async throws {
        let bonds = InMemoryBondStore()
        var peer = try Self.peer(holding: nil)
        peer.pairing = PairingConfiguration()
        let controller = VirtualController(peers: [peer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock(), security: HCISecurityConfiguration(bonds: bonds))
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            // First connection: the refusal starts pairing (SC Just Works, Harald on both sides).
            let first = try await central.connect(to: PeripheralIdentifier(address: Self.peerAddress), timeout: .seconds(30))
            let characteristic = try await first.characteristic(Self.secret, service: Self.service)
            #expect(try await first.readRaw(characteristic) == [0x42])
            #expect(await first.security()?.isBonded == true)
            await first.disconnect()
            let bond = try #require(await bonds.bond(for: Self.peerAddress))
            #expect(bond.isSecureConnections)
            #expect(bond.longTermKey?.ediv == 0 && bond.longTermKey?.rand == 0)

            // Second connection: the stored key encrypts the link; no second pairing.
            let second = try await central.connect(to: PeripheralIdentifier(address: Self.peerAddress), timeout: .seconds(30))
            let again = try await second.characteristic(Self.secret, service: Self.service)
            #expect(try await second.readRaw(again) == [0x42])
            await second.disconnect()
            #expect(await bonds.allBonds().count == 1)
            #expect(controller.pairingsStarted == 1, "the second connection re-encrypted without pairing")
        }
        await backend.close()
    }

    /// Polls `condition` (real time, up to 10 s).
    static func eventually(_ condition: () async -> Bool) async throws -> Bool {
        for _ in 0..<200 {
            if await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func aSecurityRequestFromAPeerWithoutABondStartsPairing() async throws {
        let bonds = InMemoryBondStore()
        var peer = try Self.peer(holding: nil)
        peer.pairing = PairingConfiguration()
        peer.securityRequest = [.bonding, .secureConnections]
        let controller = VirtualController(peers: [peer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock(), security: HCISecurityConfiguration(bonds: bonds))
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.peerAddress), timeout: .seconds(30))
            // Nothing of ours is refused: the Security Request alone pairs the link.
            #expect(try await Self.eventually { await connection.security()?.isBonded == true })
            #expect(controller.pairingsStarted == 1)
            #expect(await bonds.allBonds().count == 1)
            let characteristic = try await connection.characteristic(Self.secret, service: Self.service)
            #expect(try await connection.readRaw(characteristic) == [0x42])
            #expect(controller.pairingsStarted == 1)
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func aSecurityRequestFromABondedPeerEncryptsWithTheStoredKey() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        var peer = try Self.peer(holding: Self.key)
        peer.pairing = PairingConfiguration()
        peer.securityRequest = [.bonding]
        let controller = VirtualController(peers: [peer])
        let backend = try await HCICentralBackend.open(transport: controller, clock: ManualClock(), security: HCISecurityConfiguration(bonds: bonds))
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.peerAddress), timeout: .seconds(30))
            #expect(try await Self.eventually { await connection.security()?.level == .encrypted })
            #expect(await connection.security()?.isBonded == true)
            #expect(controller.pairingsStarted == 0)
            await connection.disconnect()
        }
        await backend.close()
    }
}
