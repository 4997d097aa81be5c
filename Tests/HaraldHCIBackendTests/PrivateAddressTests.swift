import Foundation
import Harald
import HaraldATT
import HaraldCodec
import HaraldCore
@testable import HaraldHCIBackend
import HaraldSMP
import HaraldTestSupport
import Testing

/// A bonded peer that advertises from a resolvable private address made with the IRK it gave
/// when pairing: recognised in scans and reached by its identity, over the in-process controller.
@Suite("HCI backend: bonded peers behind resolvable private addresses")
struct PrivateAddressTests {
    static let identity = BluetoothAddress("C0:5E:C0:00:00:77", kind: .random)!
    static let irk = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: (0..<16).map { UInt8(0x90 + $0) })!)
    static let rpa = irk.resolvablePrivateAddress(prand: 0x5A_12_34)!
    static let key = LinkSecurityTests.key

    static func peer() throws -> VirtualPeer {
        var peer = try LinkSecurityTests.peer(holding: key)
        peer.address = rpa
        peer.advertisingData = [0x02, 0x01, 0x06]
        return peer
    }

    static func bond() throws -> Bond {
        try Bond(
            identityAddress: identity, lastAddress: identity,
            longTermKey: LongTermKey(key: key, keySize: 16, isAuthenticated: false, isSecureConnections: true),
            localLongTermKey: nil, peerIdentityResolvingKey: irk, peerSignatureKey: nil, localSignatureKey: nil, keySize: 16,
            isAuthenticated: false, isSecureConnections: true, createdAt: Date(timeIntervalSince1970: 0))
    }

    static func open(_ bonds: InMemoryBondStore) async throws -> (VirtualController, HCICentralBackend) {
        let controller = VirtualController(peers: [try peer()])
        let backend = try await HCICentralBackend.open(
            transport: controller, clock: ManualClock(), security: HCISecurityConfiguration(bonds: bonds))
        return (controller, backend)
    }

    static func firstAdvertisement(_ backend: HCICentralBackend) async throws -> Advertisement? {
        try await withHangGuard(seconds: 60) {
            for try await advertisement in backend.scan(ScanRequest()) { return advertisement }
            return nil
        }
    }

    @Test func withPrivateAddressTheCentralConnectsFromAnRPAOfItsOwnIRK() async throws {
        let bonds = InMemoryBondStore()
        let controller = VirtualController(peers: [try Self.peer()])
        let backend = try await HCICentralBackend.open(
            transport: controller, clock: ManualClock(), security: HCISecurityConfiguration(bonds: bonds), privateAddress: true)
        let ours = await backend.host.controller?.randomAddress
        await backend.close()
        let identity = try #require(await bonds.localIdentity())
        let address = try #require(ours)
        #expect(address.isResolvablePrivate)
        #expect(address != identity.address)
        #expect(identity.identityResolvingKey.resolves(address))
    }

    @Test func theSampleRPAIsAResolvablePrivateAddress() {
        #expect(Self.rpa.isResolvablePrivate)
        #expect(Self.irk.resolves(Self.rpa))
    }

    @Test func aBondedPeerAdvertisingFromAnRPAIsReportedUnderItsIdentityWithTheAddressSeen() async throws {
        let (_, backend) = try await Self.open(InMemoryBondStore(bonds: [try Self.bond()]))
        let advertisement = try #require(try await Self.firstAdvertisement(backend))
        await backend.close()
        #expect(advertisement.peripheral == PeripheralIdentifier(address: Self.identity))
        #expect(advertisement.resolvedPrivateAddress == Self.rpa)
    }

    @Test func theSpecSampleRPAIsReportedUnderTheIdentityBondedWithTheSampleIRK() async throws {
        // notes/smp.md §7: IRK ec0234a3 57c8ad05 341010a6 0a397d9b makes 70:81:94:0D:FB:AA.
        let sampleIRK = IdentityResolvingKey(
            key: SecretKey128(littleEndianBytes: try Hex.decode("ec0234a357c8ad05341010a60a397d9b").reversed())!)
        let sampleRPA = BluetoothAddress("70:81:94:0D:FB:AA", kind: .random)!
        var peer = try Self.peer()
        peer.address = sampleRPA
        let bond = try Bond(
            identityAddress: Self.identity, lastAddress: Self.identity,
            longTermKey: LongTermKey(key: Self.key, keySize: 16, isAuthenticated: false, isSecureConnections: true),
            localLongTermKey: nil, peerIdentityResolvingKey: sampleIRK, peerSignatureKey: nil, localSignatureKey: nil, keySize: 16,
            isAuthenticated: false, isSecureConnections: true, createdAt: Date(timeIntervalSince1970: 0))
        let backend = try await HCICentralBackend.open(
            transport: VirtualController(peers: [peer]), clock: ManualClock(),
            security: HCISecurityConfiguration(bonds: InMemoryBondStore(bonds: [bond])))
        let advertisement = try #require(try await Self.firstAdvertisement(backend))
        await backend.close()
        #expect(advertisement.peripheral.address == Self.identity)
        #expect(advertisement.resolvedPrivateAddress == sampleRPA)
    }

    @Test func anRPANoBondResolvesIsReportedAsReceived() async throws {
        let (_, backend) = try await Self.open(InMemoryBondStore())
        let advertisement = try #require(try await Self.firstAdvertisement(backend))
        await backend.close()
        #expect(advertisement.peripheral == PeripheralIdentifier(address: Self.rpa))
        #expect(advertisement.resolvedPrivateAddress == nil)
    }

    @Test func aBondStoredAfterOneScanIsUsedByTheNext() async throws {
        let bonds = InMemoryBondStore()
        let (_, backend) = try await Self.open(bonds)
        let before = try #require(try await Self.firstAdvertisement(backend))
        await bonds.save(try Self.bond())
        let after = try #require(try await Self.firstAdvertisement(backend))
        await backend.close()
        #expect(before.peripheral.address == Self.rpa)
        #expect(after.peripheral.address == Self.identity)
    }

    @Test func connectingToTheIdentityReachesThePeerAtItsRPAAndEncryptsWithTheBond() async throws {
        let bonds = InMemoryBondStore(bonds: [try Self.bond()])
        let (controller, backend) = try await Self.open(bonds)
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let advertisement = try #require(try await Self.firstAdvertisement(backend))
            let connection = try await central.connect(to: advertisement.peripheral, timeout: .seconds(30))
            let characteristic = try await connection.characteristic(LinkSecurityTests.secret, service: LinkSecurityTests.service)
            #expect(try await connection.readRaw(characteristic) == [0x42])
            #expect(await connection.security()?.isBonded == true)
            await connection.disconnect()
        }
        await backend.close()
        #expect(controller.pairingsStarted == 0)
        // The bond remembers the private address the peer was last seen at.
        #expect(await bonds.bond(for: Self.identity)?.lastAddress == Self.rpa)
    }

    @Test func aPeerConnectedAtItsRPAFindsItsBondInAStoreThatCannotResolve() async throws {
        // The store was made without a resolver: only the backend's own resolution finds the bond.
        let (_, backend) = try await Self.open(InMemoryBondStore(bonds: [try Self.bond()]))
        let central = Central(backend: backend, clock: ManualClock())
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: Self.rpa), timeout: .seconds(30))
            let characteristic = try await connection.characteristic(LinkSecurityTests.secret, service: LinkSecurityTests.service)
            #expect(try await connection.readRaw(characteristic) == [0x42])
            await connection.disconnect()
        }
        await backend.close()
    }

    @Test func theAddressBookReloadsItsIRKsWhenTheStoreChanges() async throws {
        let bonds = InMemoryBondStore()
        let book = BondedAddressBook(bonds: bonds)
        await book.refresh(force: true)
        #expect(await book.identity(of: Self.rpa) == nil)
        await bonds.save(try Self.bond())
        #expect(await book.identity(of: Self.rpa) == Self.identity)
        #expect(await book.addressToReach(Self.identity) == Self.rpa)
        await bonds.removeBond(for: Self.identity)
        #expect(await book.identity(of: Self.rpa) == nil)
        #expect(await book.addressToReach(Self.identity) == Self.identity)
    }
}

/// Repeated Attempts protection as central (Core spec Vol 3 Part H §2.3.6).
@Suite("HCI backend: repeated pairing attempts")
struct RepeatedPairingAttemptTests {
    static let refused = BluetoothError.pairingFailed("the peer refused: Authentication Requirements (0x03)")

    /// A peer that wants MITM protection Just Works cannot give: every pairing fails with
    /// Authentication Requirements.
    static func open(clock: ManualClock) async throws -> (VirtualController, HCICentralBackend, Central) {
        var peer = try LinkSecurityTests.peer(holding: nil)
        peer.pairing = PairingConfiguration(authReq: [.bonding, .mitm, .secureConnections])
        let controller = VirtualController(peers: [peer])
        let backend = try await HCICentralBackend.open(
            transport: controller, clock: clock, security: HCISecurityConfiguration(bonds: InMemoryBondStore()))
        return (controller, backend, Central(backend: backend, clock: clock))
    }

    /// Reads the protected characteristic; the error, or nil when it was read.
    static func read(on connection: PeripheralConnection) async throws -> BluetoothError? {
        let characteristic = try await connection.characteristic(LinkSecurityTests.secret, service: LinkSecurityTests.service)
        do {
            _ = try await connection.readRaw(characteristic)
            return nil
        } catch { return BluetoothError(error) }
    }

    static let address = PeripheralIdentifier(address: LinkSecurityTests.peerAddress)

    @Test func aFailedPairingMakesTheNextOneWaitSaysHowLongAndDoublesTheWait() async throws {
        let clock = ManualClock()
        let (controller, backend, central) = try await Self.open(clock: clock)
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: Self.address, timeout: .seconds(30))
            #expect(try await Self.read(on: connection) == Self.refused)
            // One pairing per link on the peer's request: this link does not pair again.
            #expect(try await Self.read(on: connection) == .securityNotRaised(.alreadyRaisedOnThisLink(current: .none)))
            await connection.disconnect()

            let second = try await central.connect(to: Self.address, timeout: .seconds(30))
            #expect(try await Self.read(on: second) == .pairingAttemptTooSoon(retryAfter: .seconds(2)))
            #expect(controller.pairingsStarted == 1, "nothing was sent for the refused attempt")
            clock.advance(by: .seconds(2))
            #expect(try await Self.read(on: second) == Self.refused)
            #expect(controller.pairingsStarted == 2, "a refusal for Repeated Attempts did not use up the link's pairing")
            await second.disconnect()

            let third = try await central.connect(to: Self.address, timeout: .seconds(30))
            #expect(try await Self.read(on: third) == .pairingAttemptTooSoon(retryAfter: .seconds(4)))
            await third.disconnect()
        }
        await backend.close()
    }

    @Test func theWaitHoldsAcrossConnections() async throws {
        let clock = ManualClock()
        let (controller, backend, central) = try await Self.open(clock: clock)
        try await withHangGuard(seconds: 120) {
            let first = try await central.connect(to: Self.address, timeout: .seconds(30))
            #expect(try await Self.read(on: first) == Self.refused)
            await first.disconnect()

            let second = try await central.connect(to: Self.address, timeout: .seconds(30))
            #expect(try await Self.read(on: second) == .pairingAttemptTooSoon(retryAfter: .seconds(2)))
            clock.advance(by: .seconds(2))
            #expect(try await Self.read(on: second) == Self.refused)
            #expect(controller.pairingsStarted == 2)
            await second.disconnect()
        }
        await backend.close()
    }
}

/// The SMP timeout as central (Core spec Vol 3 Part H §3.4): no more SMP on that link.
@Suite("HCI backend: the SMP timeout")
struct SMPTimeoutOverHCITests {
    @Test func afterAPairingTimedOutTheLinkNeverSendsSMPAgain() async throws {
        var peer = try LinkSecurityTests.peer(holding: nil)
        peer.ignoresSecurityManager = true
        let controller = VirtualController(peers: [peer])
        let clock = ManualClock()
        let backend = try await HCICentralBackend.open(
            transport: controller, clock: clock, security: HCISecurityConfiguration(bonds: InMemoryBondStore()))
        let central = Central(backend: backend, clock: clock)
        try await withHangGuard(seconds: 120) {
            let connection = try await central.connect(to: PeripheralIdentifier(address: LinkSecurityTests.peerAddress))
            let characteristic = try await connection.characteristic(LinkSecurityTests.secret, service: LinkSecurityTests.service)
            let finished = Locked(false)
            let reading = Task { () -> BluetoothError? in
                defer { finished.withLock { $0 = true } }
                do {
                    // The call's own deadline is far beyond the Security Manager Timer's 30 s.
                    _ = try await connection.readRaw(characteristic, timeout: .seconds(3600))
                    return nil
                } catch { return BluetoothError(error) }
            }
            while controller.securityManagerPDUsReceived == 0 { await Task.yield() }
            // Other engines' timer sleepers may already sleep, so a sleeper count cannot tell
            // that the Security Manager Timer is armed: move time on in 30 s steps until the
            // pairing gives up. The pairing runs on the host's executor (the link's serial
            // domain), not on this task's pool, so the loop never blocks waiting for a sleeper:
            // the last timer may have fired with the pairing's failure still on its way.
            while !finished.withLock({ $0 }) {
                if clock.sleeperCount > 0 { clock.advance(by: .seconds(30)) }
                for _ in 0..<1000 where !finished.withLock({ $0 }) { await Task.yield() }
            }
            // The pairing gave up (the error names the call's whole timeout, as every step's does),
            // long before the call's own deadline.
            #expect(await reading.value == .timeout(operation: "pairing", after: .seconds(3600)))
            #expect(clock.now.offset < .seconds(3600))

            clock.advance(by: .seconds(600))  // long past any Repeated Attempts wait
            do {
                _ = try await connection.readRaw(characteristic)
                Issue.record("the read succeeded")
            } catch {
                #expect(BluetoothError(error) == .pairingFailed("the SMP timeout passed on this link; pairing needs a new connection"))
            }
            #expect(controller.securityManagerPDUsReceived == 1, "only the first Pairing Request was sent")
            await connection.disconnect()
        }
        await backend.close()
    }
}
