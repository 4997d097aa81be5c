import HaraldCore
import HaraldSMP
import Testing

/// The host's resolving list: bonded peers' IRKs, with a bounded cache of answers.
@Suite("Address resolving list")
struct AddressResolvingListTests {
    /// notes/smp.md §7: this IRK makes 70:81:94:0D:FB:AA from prand 708194.
    static let sampleIRK = IdentityResolvingKey(key: try! specKey("ec0234a3 57c8ad05 341010a6 0a397d9b"))
    static let sampleRPA = BluetoothAddress("70:81:94:0D:FB:AA", kind: .random)!
    static let sampleIdentity = BluetoothAddress("00:1B:DC:00:00:07", kind: .public)!
    static let otherIRK = IdentityResolvingKey(key: try! specKey("00112233 44556677 8899aabb ccddeeff"))
    static let otherIdentity = BluetoothAddress("C1:00:00:00:00:02", kind: .random)!

    static func list(capacity: Int = 256) -> AddressResolvingList {
        AddressResolvingList(
            [
                .init(identity: otherIdentity, key: otherIRK),
                .init(identity: sampleIdentity, key: sampleIRK),
            ], capacity: capacity)
    }

    @Test func theSpecSampleRPAResolvesToTheIdentityStoredWithItsIRK() {
        var list = Self.list()
        #expect(list.identity(of: Self.sampleRPA) == Self.sampleIdentity)
    }

    @Test func anRPANoIRKMadeResolvesToNothing() {
        var list = Self.list()
        #expect(list.identity(of: BluetoothAddress("70:81:94:0D:FB:AB", kind: .random)!) == nil)
    }

    @Test func identityAndNonResolvableAddressesAreNeverLookedUp() {
        var list = Self.list()
        #expect(list.identity(of: Self.sampleIdentity) == nil)
        #expect(list.identity(of: BluetoothAddress("70:81:94:0D:FB:AA", kind: .public)!) == nil)
        #expect(list.identity(of: BluetoothAddress("30:81:94:0D:FB:AA", kind: .random)!) == nil)  // non-resolvable
        #expect(list.computations == 0)
    }

    @Test func anAddressSeenAgainIsAnsweredFromTheCacheMatchOrNot() {
        var list = Self.list()
        let stranger = BluetoothAddress("4F:00:00:12:34:56", kind: .random)!
        for _ in 0..<100 {
            _ = list.identity(of: Self.sampleRPA)
            _ = list.identity(of: stranger)
        }
        #expect(list.computations == 2)
        #expect(list.identity(of: Self.sampleRPA) == Self.sampleIdentity)
    }

    @Test func theCacheHoldsAtMostItsCapacityDroppingTheOldestAnswer() {
        var list = Self.list(capacity: 8)
        _ = list.identity(of: Self.sampleRPA)
        for index in 0..<8 {
            _ = list.identity(of: BluetoothAddress(value: 0x4F_00_00_00_00_00 + UInt64(index), kind: .random)!)
        }
        #expect(list.cachedCount == 8)
        #expect(list.identity(of: Self.sampleRPA) == Self.sampleIdentity)
        #expect(list.computations == 10, "the sample RPA was dropped and computed again")
    }

    @Test func anRPAMadeWithAPeersIRKResolvesToItsIdentity() {
        var generator = SystemRandomNumberGenerator()
        let rpa = Self.otherIRK.resolvablePrivateAddress(using: &generator)
        var list = Self.list()
        #expect(list.identity(of: rpa) == Self.otherIdentity)
    }

    @Test func anAllZeroIRKIsNotUsed() {
        let zero = IdentityResolvingKey(key: SecretKey128(littleEndianBytes: [UInt8](repeating: 0, count: 16))!)
        let rpa = zero.resolvablePrivateAddress(prand: 0x708194)!
        var list = AddressResolvingList([.init(identity: Self.sampleIdentity, key: zero)])
        #expect(list.count == 0)
        #expect(list.identity(of: rpa) == nil)
    }
}
