import Foundation
import HaraldCore
import HaraldGATTLink
import HaraldSMP
import Testing

/// ``BondAdmission`` on its own: the verdict on a pairing's keys for each way a peer can connect
/// and claim an identity, with the Core spec's `ah` sample (Vol 3 Part H Appendix D.7: IRK
/// ec0234a3 57c8ad05 341010a6 0a397d9b, prand 708194 → hash 0dfbaa) as the resolvable address.
@Suite("BondAdmission: the rules a pairing's keys pass before they become a bond")
struct BondAdmissionTests {
    /// The spec's IRK, least significant octet first as SMP carries it.
    static let specIRK = IdentityResolvingKey(
        key: SecretKey128(littleEndianBytes: [0xEC, 0x02, 0x34, 0xA3, 0x57, 0xC8, 0xAD, 0x05, 0x34, 0x10, 0x10, 0xA6, 0x0A, 0x39, 0x7D, 0x9B].reversed())!)
    static let zeroIRK = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: Array(repeating: 0, count: 16))!)
    static let otherIRK = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: Array(repeating: 0x77, count: 16))!)
    /// The resolvable private address the spec's IRK makes from prand 708194.
    static let rpa = BluetoothAddress("70:81:94:0D:FB:AA", kind: .random)!
    static let identity = BluetoothAddress("C0:11:22:33:44:55", kind: .random)!
    static let other = BluetoothAddress("C0:66:77:88:99:AA", kind: .random)!
    static let nonResolvable = BluetoothAddress("01:02:03:04:05:06", kind: .random)!

    static func keys(
        from address: BluetoothAddress, claiming claimed: BluetoothAddress?, irk: IdentityResolvingKey? = nil,
        method: PairingMethod = PairingMethod(isSecureConnections: true, model: .justWorks), bonding: Bool = true
    ) -> PeerPairingKeys {
        PeerPairingKeys(connectedFrom: address, identityAddress: claimed, identityResolvingKey: irk, method: method, keySize: 16, isBonding: bonding)
    }

    static func bond(_ identity: BluetoothAddress, irk: IdentityResolvingKey? = nil, authenticated: Bool = false) throws -> Bond {
        let key = SecretKey128(littleEndianBytes: Array(repeating: 0x42, count: 16))!
        return try Bond(
            identityAddress: identity, longTermKey: LongTermKey(key: key, isAuthenticated: authenticated, isSecureConnections: true),
            peerIdentityResolvingKey: irk, isAuthenticated: authenticated, isSecureConnections: true)
    }

    static func admission(_ bonds: [Bond] = [], allows: Bool = false) -> BondAdmission {
        BondAdmission(bonds: InMemoryBondStore(bonds: bonds), agent: AutomaticPairingAgent(allowsWeakerBondReplacement: allows))
    }

    // MARK: Proven identity

    @Test func anIdentityAddressMustNameItself() async {
        let admission = Self.admission()
        #expect(await admission.check(Self.keys(from: Self.identity, claiming: Self.identity), knownIdentity: nil) == .accept)
        #expect(
            await admission.check(Self.keys(from: Self.other, claiming: Self.identity), knownIdentity: nil)
                == .refuse(.invalidParameters, .identityNotProven(connectedFrom: Self.other, claimed: Self.identity)))
    }

    @Test func aResolvablePrivateAddressMustBeResolvedByTheDistributedIRK() async {
        let admission = Self.admission()
        #expect(Self.specIRK.resolves(Self.rpa), "the spec sample")
        #expect(await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: Self.specIRK), knownIdentity: nil) == .accept)
        #expect(
            await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: Self.otherIRK), knownIdentity: nil)
                == .refuse(.invalidParameters, .identityNotProven(connectedFrom: Self.rpa, claimed: Self.identity)))
        #expect(
            await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: nil), knownIdentity: nil)
                == .refuse(.invalidParameters, .identityNotProven(connectedFrom: Self.rpa, claimed: Self.identity)))
    }

    @Test func anAllZeroIRKProvesNothing() async {
        let admission = Self.admission()
        #expect(Self.zeroIRK.isAllZero && !Self.zeroIRK.resolves(Self.rpa))
        #expect(
            await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: Self.zeroIRK), knownIdentity: nil)
                == .refuse(.invalidParameters, .identityNotProven(connectedFrom: Self.rpa, claimed: Self.identity)))
    }

    @Test func aNonResolvablePrivateAddressCannotProveAnIdentity() async {
        #expect(
            await Self.admission().check(Self.keys(from: Self.nonResolvable, claiming: Self.identity, irk: Self.specIRK), knownIdentity: nil)
                == .refuse(.invalidParameters, .identityNotProven(connectedFrom: Self.nonResolvable, claimed: Self.identity)))
    }

    @Test func aPeerThatClaimsNoIdentityIsKeptUnderTheAddressItConnectedFrom() async {
        #expect(await Self.admission().check(Self.keys(from: Self.identity, claiming: nil), knownIdentity: nil) == .accept)
        #expect(BondAdmission.bondIdentity(distributed: nil, knownIdentity: nil, connectedFrom: Self.identity) == Self.identity)
        #expect(BondAdmission.bondIdentity(distributed: nil, knownIdentity: nil, connectedFrom: Self.rpa) == nil)
    }

    // MARK: Another device's bond

    @Test func aProvenIdentityStillCannotTakeAnotherDevicesBond() async throws {
        // The attacker owns its IRK (which resolves its address) but names a bonded device's identity.
        let admission = Self.admission([try Self.bond(Self.identity, irk: Self.otherIRK, authenticated: false)], allows: true)
        let strong = PairingMethod(isSecureConnections: true, model: .passkeyEntry(.responderDisplays))
        #expect(
            await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: Self.specIRK, method: strong), knownIdentity: nil)
                == .refuse(.unspecifiedReason, .identityBondedToAnotherDevice(Self.identity)))
    }

    @Test func theBondedDevicesOwnPrivateAddressReplacesItsBond() async throws {
        let admission = Self.admission([try Self.bond(Self.identity, irk: Self.specIRK)])
        let strong = PairingMethod(isSecureConnections: true, model: .passkeyEntry(.responderDisplays))
        #expect(await admission.check(Self.keys(from: Self.rpa, claiming: Self.identity, irk: Self.specIRK, method: strong), knownIdentity: nil) == .accept)
    }

    // MARK: Downgrade

    @Test func weakerPairingsNeedTheAgentAndStrongerOnesDoNot() async throws {
        let authenticated = try Self.bond(Self.identity, authenticated: true)
        let justWorks = Self.keys(from: Self.identity, claiming: Self.identity)
        let passkey = Self.keys(
            from: Self.identity, claiming: Self.identity, method: PairingMethod(isSecureConnections: true, model: .passkeyEntry(.responderDisplays)))
        #expect(await Self.admission([authenticated]).check(passkey, knownIdentity: nil) == .accept)
        guard case .refuse(.unspecifiedReason, .weakerThanStoredBond) = await Self.admission([authenticated]).check(justWorks, knownIdentity: nil) else {
            Issue.record("Just Works replaced an authenticated bond")
            return
        }
        #expect(await Self.admission([authenticated], allows: true).check(justWorks, knownIdentity: nil) == .accept)
        // Without bonding nothing is replaced, so nothing to refuse.
        #expect(
            await Self.admission([authenticated]).check(Self.keys(from: Self.identity, claiming: Self.identity, bonding: false), knownIdentity: nil) == .accept)
    }

    @Test func aShorterKeyDoesNotReplaceAnAuthenticatedBondSilently() {
        let existing = BondStrength(identityAddress: Self.identity, level: .authenticated, keySize: 16)
        #expect(!BondStrength(identityAddress: Self.identity, level: .authenticated, keySize: 7).mayReplaceWithoutAsking(existing))
        #expect(!BondStrength(identityAddress: Self.identity, level: .encrypted, keySize: 16).mayReplaceWithoutAsking(existing))
        #expect(BondStrength(identityAddress: Self.identity, level: .authenticatedSecureConnections, keySize: 16).mayReplaceWithoutAsking(existing))
    }

    // MARK: All-zero IRK elsewhere

    @Test func anAllZeroIRKIsNeitherStoredNorUsedForLookups() async throws {
        let bond = try Self.bond(Self.identity, irk: Self.zeroIRK)
        #expect(bond.peerIdentityResolvingKey == nil)
        // Even a resolver that says yes to everything finds no bond through a zero IRK.
        let store = InMemoryBondStore(bonds: [bond], resolver: { _, _ in true })
        #expect(await store.bond(resolving: Self.rpa) == nil)
        #expect(AddressResolvingList([.init(identity: Self.identity, key: Self.zeroIRK)]).count == 0)
    }
}
