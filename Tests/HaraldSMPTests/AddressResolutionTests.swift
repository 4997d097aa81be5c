import HaraldCore
import HaraldSMP
import Testing

/// ah and resolvable private addresses: notes/smp.md §7 and §8.8.
@Suite("Address resolution")
struct AddressResolutionTests {
    static let irkHex = "ec0234a3 57c8ad05 341010a6 0a397d9b"

    static func irk() throws -> IdentityResolvingKey { IdentityResolvingKey(key: try specKey(irkHex)) }

    @Test func ahMatchesTheSpecSample() throws {
        #expect(SMPCrypto.ah(try specKey(Self.irkHex), 0x708194) == 0x0dfbaa)
    }

    @Test func anRPAIsPrandThenItsHash() throws {
        #expect(try Self.irk().resolvablePrivateAddress(prand: 0x708194) == BluetoothAddress("70:81:94:0D:FB:AA", kind: .random))
    }

    @Test func theSampleRPAIsSentHashFirst() throws {
        let address = try #require(try Self.irk().resolvablePrivateAddress(prand: 0x708194))
        #expect(address.littleEndianBytes == [0xaa, 0xfb, 0x0d, 0x94, 0x81, 0x70])
    }

    @Test func theIRKResolvesItsOwnRPA() throws {
        #expect(try Self.irk().resolves(#require(BluetoothAddress("70:81:94:0D:FB:AA", kind: .random))))
    }

    @Test func anotherIRKDoesNotResolveTheRPA() throws {
        let other = IdentityResolvingKey(key: try specKey("00112233 44556677 8899aabb ccddeeff"))
        #expect(!other.resolves(try #require(BluetoothAddress("70:81:94:0D:FB:AA", kind: .random))))
    }

    @Test func anRPAWithAWrongHashDoesNotResolve() throws {
        #expect(try !Self.irk().resolves(#require(BluetoothAddress("70:81:94:0D:FB:AB", kind: .random))))
    }

    @Test func aPublicAddressWithTheSameBitsDoesNotResolve() throws {
        #expect(try !Self.irk().resolves(#require(BluetoothAddress("70:81:94:0D:FB:AA", kind: .public))))
    }

    @Test(arguments: [UInt32(0x008194), 0xC08194, 0x808194, 0x400000, 0x7FFFFF, 0x1708194])
    func prandMustBeTwentyFourBitsStartingZeroOneAndNotAllZerosOrOnes(prand: UInt32) throws {
        #expect(try Self.irk().resolvablePrivateAddress(prand: prand) == nil)
    }

    @Test func aFreshRPAIsResolvablePrivateAndResolves() throws {
        let irk = try Self.irk()
        for _ in 0..<100 {
            let address = irk.resolvablePrivateAddress()
            #expect(address.kind == .random)
            #expect(address.isResolvablePrivate)
            #expect(irk.resolves(address))
        }
    }
}
