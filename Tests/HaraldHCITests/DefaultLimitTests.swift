import HaraldCodec
import HaraldCore
import HaraldTestSupport
import Testing

@testable import HaraldHCI

/// The limits RELIABILITY.md lists for the host, each at the default a user gets without
/// configuring anything (scripts/check-limits ties the figures here to the document).
@Suite("Host: documented limits at their defaults")
struct HostDefaultLimitTests {
    @Test func aTransportWithTheDefaultBacklogHolds4096PacketsAndReadsNoFurther() async throws {
        let server = try LoopbackServer()
        let transport = try TCPTransport(host: "127.0.0.1", port: server.port)
        server.accept()
        // 4,200 Number Of Completed Packets events, numbered by their count, nobody reading yet.
        let count = 4_200
        server.write((0..<count).flatMap { n in [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n & 0xFF), UInt8(n >> 8)] as [UInt8] })
        #expect(await eventually(10_000_000) { transport.waitingPackets == 4096 })
        #expect(transport.waitingPackets == 4096)
        // Nothing was dropped: the held-back packets follow, in order.
        var iterator = transport.packets.makeAsyncIterator()
        for n in 0..<count {
            let packet = try await iterator.next()
            guard packet == HCIPacket(type: .event, payload: [0x13, 0x05, 0x01, 0x40, 0x00, UInt8(n & 0xFF), UInt8(n >> 8)]) else {
                Issue.record("packet \(n) is \(String(describing: packet))")
                break
            }
        }
        await transport.close()
    }

    @Test func theDefaultReassemblerTakesA4096BytePDUAndRefusesOneByteMoreAtItsHeader() {
        #expect(HCIHost.Configuration().maximumReceivedPDUSize == 4096)
        var reassembler = L2CAPReassembler()
        // Basic header: payload length 4,092 (4,096 bytes with the header), CID 0x0004.
        #expect(reassembler.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [0xFC, 0x0F, 4, 0])) == nil)
        #expect(reassembler.problems.isEmpty && reassembler.isBuilding)
        var refusing = L2CAPReassembler()
        #expect(refusing.add(ACLDataPacket(handle: 1, packetBoundary: .firstFlushable, data: [0xFD, 0x0F, 4, 0])) == nil)
        #expect(refusing.problems == [.tooLarge(4097)] && !refusing.isBuilding)
    }

    @Test func theATTChannelBuffers4096SDUsByDefaultAndCountsTheNextAsDropped() async throws {
        let (controller, host, connection) = try await HostConnectionTests.connected()
        #expect(connection.att.bufferSize == 4096)
        for n in 0..<4_097 { controller.inject(HostConnectionTests.attSDU(UInt8(n & 0xFF))) }
        await HostConnectionTests.sync(controller, answers: 1)
        #expect(connection.att.droppedSDUCount == 1)
        let received = Recorder()
        #expect(
            connection.att.deliverSDUs(
                to: L2CAPChannelReceiver(
                    receive: {
                        received.append($0); return true
                    }, finish: {})))
        #expect(received.values.count == 4096)
        #expect(received.values.last == [UInt8(4_095 & 0xFF)])
        await host.close()
    }

    @Test func theSecurityManagerChannelBuffers16SDUsAndCountsTheNextAsDropped() async throws {
        var configuration = HCIHost.Configuration()
        configuration.deliversSecurityManagerPDUs = true
        let (controller, host, connection) = try await HostConnectionTests.connected(configuration: configuration)
        #expect(connection.securityManager.bufferSize == 16)
        // 17 Pairing Random PDUs (an opcode the host has no answer of its own for).
        for n: UInt8 in 0..<17 {
            controller.inject(ACLDataPacket(handle: 0x40, packetBoundary: .firstFlushable, data: [2, 0, 6, 0, 0x04, n]).packet)
        }
        await HostConnectionTests.sync(controller, answers: 1)
        #expect(connection.securityManager.droppedSDUCount == 1)
        await host.close()
    }

    @Test func aConnectionQueuesAtMost8RepliesOfItsOwn() {
        // HostReplyQueueTests floods the host and reaches this default.
        #expect(L2CAPChannelManager.maximumQueuedReplies == 8)
    }

    @Test func theDefaultAssemblerRemembers256AdvertisersAndForgetsTheLeastRecentlyHeardEighth() {
        var assembler = AdvertisementAssembler()
        #expect(assembler.capacity == 256 && ScanOptions().rememberedAdvertisers == 256)
        func address(_ n: Int) -> BluetoothAddress { BluetoothAddress(bytes: [0xC0, 0, 0, 0, UInt8(n >> 8), UInt8(n & 0xFF)], kind: .random)! }
        for n in 0..<256 {
            _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: address(n), data: [0x02, 0x01, 0x06], rssi: -40))
        }
        #expect(assembler.count == 256)
        // Advertiser 0 is heard again, so advertisers 1...32 are the least recently heard eighth.
        _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: address(0), data: [0x02, 0x01, 0x06], rssi: -40))
        _ = assembler.add(LEAdvertisingReport(eventType: .advInd, address: address(256), data: [0x02, 0x01, 0x06], rssi: -40))
        #expect(assembler.count == 256 - 32 + 1)
        let remembered = assembler.add(LEAdvertisingReport(eventType: .scanResponse, address: address(0), data: [0x02, 0x0A, 0x00], rssi: -40))
        #expect(remembered.advertisingData == [0x02, 0x01, 0x06])
        let forgotten = assembler.add(LEAdvertisingReport(eventType: .scanResponse, address: address(32), data: [0x02, 0x0A, 0x00], rssi: -40))
        #expect(forgotten.advertisingData.isEmpty)
        let kept = assembler.add(LEAdvertisingReport(eventType: .scanResponse, address: address(33), data: [0x02, 0x0A, 0x00], rssi: -40))
        #expect(kept.advertisingData == [0x02, 0x01, 0x06])
    }

    @Test func theDefaultAssemblerCutsExtendedDataAt1650BytesAndMarksItTruncated() {
        var assembler = AdvertisementAssembler()
        #expect(assembler.maximumDataLength == 1650)
        let peer = BluetoothAddress("C0:00:00:00:00:01", kind: .random)!
        var delivered: Advertisement?
        for _ in 0..<20 {  // 20 × 100 bytes "more to come": past 1,650 on the 17th
            delivered = assembler.add(
                LEExtendedAdvertisingReport(
                    eventType: 1 << 5, address: peer, rssi: -50, data: [UInt8](repeating: 0, count: 100)))
            if delivered != nil { break }
        }
        #expect(delivered?.isTruncated == true)
        #expect(delivered?.advertisingData.count == 1650)
    }
}
