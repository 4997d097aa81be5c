import HaraldCodec
import PropertyBased
import Testing

@testable import HaraldHCI
import HaraldCore

@Suite("L2CAP fragmentation and reassembly")
struct L2CAPFragmentationTests {
    @Test func anySDUFragmentedAtAnySizeReassemblesToItself() async {
        await propertyCheck(input: Gen.uint8().array(of: 0...600), Gen.int(in: 1...251)) { sdu, size in
            let fragments = fragmentL2CAP(cid: 4, sdu: sdu, handle: 0x40, maximumDataLength: size)
            #expect(fragments.allSatisfy { $0.data.count <= size && $0.handle == 0x40 })
            var reassembler = L2CAPReassembler(maximumPDUSize: 1024)
            var delivered: [L2CAPReassembler.PDU] = []
            for fragment in fragments {
                if let pdu = reassembler.add(fragment) { delivered.append(pdu) }
            }
            #expect(delivered == [L2CAPReassembler.PDU(cid: 4, payload: sdu)])
            #expect(reassembler.problems.isEmpty)
        }
    }

    @Test func continuationWithoutAStartIsDropped() {
        var reassembler = L2CAPReassembler()
        #expect(reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .continuing, data: [1, 2, 3])) == nil)
        #expect(reassembler.problems == [.continuationWithoutStart])
    }

    @Test func newStartDropsTheIncompletePDU() {
        var reassembler = L2CAPReassembler()
        _ = reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [10, 0, 4, 0, 1]))
        let pdu = reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [1, 0, 4, 0, 0x1E]))
        #expect(pdu == L2CAPReassembler.PDU(cid: 4, payload: [0x1E]))
        #expect(reassembler.problems == [.startBeforePreviousCompleted])
    }

    @Test func moreBytesThanAnnouncedAreDropped() {
        var reassembler = L2CAPReassembler()
        #expect(reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [1, 0, 4, 0, 1, 2])) == nil)
        #expect(reassembler.problems == [.longerThanAnnounced] && !reassembler.isBuilding)
    }

    @Test func pduAboveTheBoundIsRefusedAtItsHeader() {
        var reassembler = L2CAPReassembler(maximumPDUSize: 64)
        #expect(reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [0xFF, 0xFF, 4, 0])) == nil)
        #expect(reassembler.problems == [.tooLarge(65539)] && !reassembler.isBuilding)
    }

    @Test func randomFragmentsNeverTrapOrHoldMoreThanTheBound() async {
        let boundary = Gen.int(in: 0...3)
        await propertyCheck(input: Gen.uint8().array(of: 0...40).array(of: 1...30), boundary.array(of: 30)) { chunks, flags in
            var reassembler = L2CAPReassembler(maximumPDUSize: 128)
            for (index, chunk) in chunks.enumerated() {
                let pb = ACLDataPacket.PacketBoundary(rawValue: UInt8(flags[index % flags.count])) ?? .continuing
                if let pdu = reassembler.add(ACLDataPacket(handle: 1, packetBoundary: pb, data: chunk)) {
                    #expect(pdu.payload.count + 4 <= 128)
                }
            }
        }
    }
}

@Suite("btsnoop")
struct BTSnoopTests {
    @Test func fileHeaderIsMagicVersionOneAndDatalinkH4() {
        #expect(BTSnoopWriter.fileHeader == Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA])
    }

    @Test func recordsCarryLengthsDirectionFlagsAndTheYearZeroTimestamp() {
        let sink = Locked<[UInt8]>([])
        let writer = BTSnoopWriter(sink: { bytes in sink.withLock { $0 += bytes } }, microsecondsSinceUnixEpoch: { 1_000_000 })
        writer.record(HCICommand.reset.packet, direction: .hostToController)
        writer.record(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [0xAA]).packet, direction: .controllerToHost)
        let file = sink.value
        #expect(file.count == 16 + (24 + 4) + (24 + 6))
        let first = Array(file[16..<(16 + 28)])
        #expect(Array(first[0..<8]) == [0, 0, 0, 4, 0, 0, 0, 4])  // original and included length
        #expect(Array(first[8..<12]) == [0, 0, 0, 2])  // sent, command
        let timestamp = first[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(timestamp == UInt64(BTSnoopWriter.unixEpochOffset) + 1_000_000)
        #expect(Array(first[24...]) == [0x01, 0x03, 0x0C, 0x00])
        let second = Array(file[(16 + 28)...])
        #expect(Array(second[8..<12]) == [0, 0, 0, 1])  // received, data
    }

    @Test func writeFailureStopsTheCaptureWithoutThrowing() {
        struct Full: Error {}
        let writer = BTSnoopWriter(sink: { _ in throw Full() }, microsecondsSinceUnixEpoch: { 0 })
        writer.record(HCICommand.reset.packet, direction: .hostToController)
        #expect(writer.hasFailed)
    }
}
