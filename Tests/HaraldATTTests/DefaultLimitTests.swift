import HaraldCodec
import HaraldCore
import Testing

@testable import HaraldATT

/// The limits RELIABILITY.md lists for the ATT client, server and bearers, each at the default a
/// user gets without configuring anything (scripts/check-limits ties the figures here to the
/// document).
@Suite("ATT: documented limits at their defaults")
struct ATTDefaultLimitTests {
    @Test func aSubscriptionKeepsTheNewest64ValuesByDefaultAndCountsTheRest() async throws {
        let link = try await Link(services: SampleDevice.services)
        let handle = try await NotificationTests().enable(link, BluetoothUUID(0x2A37), .notifications)
        let subscription = await link.client.subscribe(handle: handle)
        for beat in 1...70 { await link.server.notify(handle: handle, value: [0, UInt8(beat)]) }
        // The read is answered after the notifications sent before it were handled.
        _ = try await link.client.read(handle: link.valueHandle(BluetoothUUID(0x2A38)))
        #expect(await link.client.droppedValueCount(subscription) == 70 - 64)
        var values = subscription.values.makeAsyncIterator()
        for beat in 7...70 { #expect(await values.next()?.value == [0, UInt8(beat)]) }
    }

    @Test func aValueIsAtMost512Bytes() {
        // LongReadBoundTests and ServerRequestTests reach it on both sides.
        #expect(ATT.maximumValueLength == 512)
    }

    @Test func aServerWithTheDefaultConfigurationQueues64PreparedWritesAndAnswersTheNextPrepareQueueFull() async throws {
        #expect(GATTServer.Configuration().maximumPreparedWrites == 64)
        var client = try await RawClient(configuration: GATTServer.Configuration())
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        for offset in 0..<64 {
            let reply = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: UInt16(offset), value: [1]))
            guard case .prepareWriteResponse = reply else {
                Issue.record("prepared write \(offset + 1) answered \(String(describing: reply))")
                return
            }
        }
        let refused = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: 64, value: [1]))
        #expect(refused == errorPDU(.prepareWriteRequest, long, .prepareQueueFull))
    }

    @Test func aWriteOfExactly512BytesIsTakenAndOneOf513IsRefusedAtExecute() async throws {
        var client = try await RawClient()
        let long = await client.server.database.characteristic(SampleDevice.vendorLong)!.valueHandle
        // 28 parts of 18 bytes and one of 8: 512 bytes.
        for part in 0..<28 {
            _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: UInt16(part * 18), value: Array(repeating: 1, count: 18)))
        }
        _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: 504, value: Array(repeating: 1, count: 8)))
        #expect(try await client.exchange(ATTExecuteWriteRequest(flags: .write)) == .executeWriteResponse(ATTExecuteWriteResponse()))
        #expect(await client.server.value(handle: long) == Array(repeating: 1, count: 512))
        for part in 0..<28 {
            _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: UInt16(part * 18), value: Array(repeating: 2, count: 18)))
        }
        _ = try await client.exchange(ATTPrepareWriteRequest(handle: long, offset: 504, value: Array(repeating: 2, count: 9)))
        #expect(try await client.exchange(ATTExecuteWriteRequest(flags: .write)) == errorPDU(.executeWriteRequest, long, .invalidAttributeValueLength))
        #expect(await client.server.value(handle: long) == Array(repeating: 1, count: 512))
    }

    @Test func eachSideOfADualRoleBearerHolds4096EventsAndDropsLaterPDUs() async throws {
        #expect(ATTDualRoleBearer.bufferLimit == 4096)
        let (local, peer) = ATTMemoryBearer.pair(mtu: 23)
        let dual = ATTDualRoleBearer(local)
        var client = dual.client.events.makeAsyncIterator()
        var server = dual.server.events.makeAsyncIterator()
        let notification = ATTOpcode.handleValueNotification.rawValue, command = ATTOpcode.writeCommand.rawValue
        func pdu(_ opcode: UInt8, _ n: Int) -> [UInt8] { [opcode, 0x03, 0x00, UInt8(n & 0xFF), UInt8(n >> 8)] }
        // One side flooded with 4,097 PDUs nobody reads, then one PDU for the other side: when
        // that one arrives, the router has routed the whole flood.
        for (flooded, other) in [(notification, command), (command, notification)] {
            for n in 0..<4_097 { try await peer.send(pdu(flooded, n)) }
            try await peer.send(pdu(other, 0xFFFF))
            var (floodedSide, otherSide) = flooded == notification ? (client, server) : (server, client)
            #expect(await otherSide.next() == .received(pdu(other, 0xFFFF)))
            for n in 0..<4096 {
                let event = await floodedSide.next()
                guard event == .received(pdu(flooded, n)) else {
                    Issue.record("PDU \(n) of the flood: \(String(describing: event))")
                    return
                }
            }
            // The 4,097th was dropped: the next PDU for that side is one sent now.
            try await peer.send(pdu(flooded, 0xFFFE))
            #expect(await floodedSide.next() == .received(pdu(flooded, 0xFFFE)))
            (client, server) = flooded == notification ? (floodedSide, otherSide) : (otherSide, floodedSide)
        }
    }
}
