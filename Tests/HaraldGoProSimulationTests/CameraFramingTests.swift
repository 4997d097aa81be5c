@testable import HaraldGoProSimulation
import Testing

@Suite("The simulated camera's packet framing (protocols.md A.2)")
struct CameraFramingTests {
    @Test func aFortyByteMessageIsSplitAsTheDerivedVectorSays() {
        // A.8: `20 28 00…11`, `80 12…24`, `81 25 26 27`.
        let packets = CameraPacketFraming.packets(for: Array(0..<40))
        #expect(packets == [[0x20, 0x28] + Array(0x00...0x11), [0x80] + Array(0x12...0x24), [0x81, 0x25, 0x26, 0x27]])
    }

    @Test func aMessageThatFitsOnePacketHasAGeneralHeader() {
        #expect(CameraPacketFraming.packets(for: [0x01, 0x00]) == [[0x02, 0x01, 0x00]])
        #expect(CameraPacketFraming.packets(for: Array(repeating: 7, count: 19)) == [[19] + Array(repeating: 7, count: 19)])
        #expect(CameraPacketFraming.packets(for: Array(repeating: 7, count: 20)).map(\.first) == [0x20, 0x80])
    }

    @Test func everyPacketIsAtMostTwentyBytesAndTheCounterWrapsAfterFifteen() {
        let packets = CameraPacketFraming.packets(for: Array(repeating: 0xAB, count: 370))
        #expect(packets.allSatisfy { $0.count <= 20 })
        #expect(packets.dropFirst().map { $0[0] } == (0..<19).map { 0x80 | UInt8($0 % 16) })
        #expect(packets.reduce(0) { $0 + $1.count } - packets.count - 1 == 370)
    }

    @Test func aMessageAbove8191BytesHasAnExtended16BitHeader() {
        let packets = CameraPacketFraming.packets(for: Array(repeating: 1, count: 9000))
        #expect(packets.first.map { Array($0.prefix(3)) } == [0x40, 0x23, 0x28])
        #expect(packets.first?.count == 20)
    }

    @Test func requestsWithGeneralAndExtended13HeadersAreReassembled() {
        var assembler = CameraRequestAssembler()
        #expect(assembler.take([0x03, 0x01, 0x01, 0x01]) == [0x01, 0x01, 0x01])
        #expect(assembler.take([0x03, 0x13, 0x0A]) == nil)
        #expect(assembler.take([0x80, 0x46]) == [0x13, 0x0A, 0x46])
        #expect(assembler.take([0x20, 0x04, 0x12, 0x02]) == nil)
        #expect(assembler.take([0x80, 0x03]) == nil)
        #expect(assembler.take([0x81, 0x79]) == [0x12, 0x02, 0x03, 0x79])
    }

    @Test func whatTheCameraCannotReadIsDropped() {
        var assembler = CameraRequestAssembler()
        // Extended 16-bit headers cannot be sent to the camera; 0b011 is reserved.
        #expect(assembler.take([0x40, 0x00, 0x01, 0x51]) == nil)
        #expect(assembler.take([0x60, 0x51]) == nil)
        // A continuation with no message under way.
        #expect(assembler.take([0x80, 0x51]) == nil)
        // More bytes than announced.
        #expect(assembler.take([0x01, 0x51, 0x00]) == nil)
        #expect(assembler.take([]) == nil)
        // A start packet mid-message begins a new message, as the SDK's accumulator does.
        #expect(assembler.take([0x05, 0x12]) == nil)
        #expect(assembler.take([0x01, 0x51]) == [0x51])
    }
}
