import HaraldCore
import HaraldSMP
import Testing

/// c1 and s1 against the examples of Core spec Vol 3 Part H §2.2.3 and §2.2.4: notes/smp.md
/// §8.10 and 8.11.
@Suite("LE legacy pairing functions")
struct LegacyPairingFunctionTests {
    /// preq = 07071000000101 as printed, sent as 01 01 00 00 10 07 07.
    static let pairingRequest: [UInt8] = [0x01, 0x01, 0x00, 0x00, 0x10, 0x07, 0x07]
    /// pres = 05000800000302 as printed, sent as 02 03 00 00 08 00 05.
    static let pairingResponse: [UInt8] = [0x02, 0x03, 0x00, 0x00, 0x08, 0x00, 0x05]

    @Test func c1MatchesTheSpecExample() throws {
        let confirm = SMPCrypto.c1(
            .zero, try spec128("5783D521 56AD6F0E 6388274E C6702EE0"),
            pairingRequest: Self.pairingRequest, pairingResponse: Self.pairingResponse,
            initiator: try specAddress("A1A2A3A4A5A6", .random), responder: try specAddress("B1B2B3B4B5B6", .public))
        #expect(confirm == (try spec128("1e1e3fef 878988ea d2a74dc5 bef13b86")))
    }

    @Test func c1RefusesAPairingPDUThatIsNotSevenOctets() throws {
        let confirm = SMPCrypto.c1(
            .zero, .zero, pairingRequest: Array(Self.pairingRequest.dropLast()), pairingResponse: Self.pairingResponse,
            initiator: try specAddress("A1A2A3A4A5A6", .random), responder: try specAddress("B1B2B3B4B5B6", .public))
        #expect(confirm == nil)
    }

    @Test func s1MatchesTheSpecExample() throws {
        let stk = SMPCrypto.s1(
            .zero, try spec128("000F0E0D 0C0B0A09 11223344 55667788"), try spec128("01020304 05060708 99AABBCC DDEEFF00"))
        #expect(stk == (try specKey("9a1fe1f0 e8b0f49b 5b4216ae 796da062")))
    }
}
