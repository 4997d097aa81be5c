import HaraldATT
import HaraldCodec
import Testing

/// A server can keep a long read going by answering every Read Blob in full; the client stops at
/// 512 bytes, the most an attribute value may hold (Core Vol 3 Part F §3.2.9).
@Suite("GATT client: a long read is bounded by the longest attribute value")
struct LongReadBoundTests {
    /// ATT_MTU 23: every full part is 22 bytes. The client asks again while it holds fewer than
    /// 512 bytes: the Read and 23 Read Blobs (offsets 22 … 506) bring 528 bytes, past what any
    /// attribute holds, so the read fails with a typed error and nothing more is asked.
    @Test func aServerThatAnswersEveryBlobInFullFailsTheReadPast512Bytes() async throws {
        var link = ScriptedLink()
        let client = link.client
        let reading = Task { try await client.readLong(handle: 0x0010) }
        let part = [UInt8](repeating: 0xAB, count: 22)
        #expect(await link.nextPDU() == [0x0A, 0x10, 0x00])
        try await link.reply(ATTReadResponse(value: part))
        for blob in 1...23 {
            let offset = UInt16(22 * blob)
            #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, UInt8(offset & 0xFF), UInt8(offset >> 8)])
            try await link.reply(ATTReadBlobResponse(value: part))
        }
        await #expect(throws: GATTError.invalidResponse("value longer than 512 bytes, the most an attribute holds")) {
            _ = try await reading.value
        }
        // The link stays usable: the next request is the caller's, not another Read Blob.
        let next = Task { try await client.read(handle: 0x0011) }
        #expect(await link.nextPDU() == [0x0A, 0x11, 0x00])
        try await link.reply(ATTReadResponse(value: [1]))
        #expect(try await next.value == [1])
    }

    /// A 512-byte value ends on a short part at ATT_MTU 23 (23 × 22 = 506, then 6 bytes).
    @Test func aValueOfExactly512BytesIsReadWhole() async throws {
        var link = ScriptedLink()
        let client = link.client
        let value = (0..<512).map { UInt8(truncatingIfNeeded: $0) }
        let reading = Task { try await client.readLong(handle: 0x0010) }
        #expect(await link.nextPDU() == [0x0A, 0x10, 0x00])
        try await link.reply(ATTReadResponse(value: Array(value[0..<22])))
        var offset = 22
        while offset < 512 {
            #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, UInt8(offset & 0xFF), UInt8(offset >> 8)])
            try await link.reply(ATTReadBlobResponse(value: Array(value[offset..<min(offset + 22, 512)])))
            offset += 22
        }
        #expect(try await reading.value == value)
    }

    /// ATT_MTU 33: 16 full parts of 32 bytes make exactly 512. No value can be longer, so the
    /// client does not spend a Read Blob asking whether more follows.
    @Test func aValueThatReaches512BytesOnAFullPartEndsWithoutAnotherRequest() async throws {
        var link = ScriptedLink(mtu: 33, configuration: .init(preferredMTU: 33))
        let client = link.client
        let exchange = Task { try await client.exchangeMTU() }
        _ = await link.nextPDU()
        try await link.reply(ATTExchangeMTUResponse(serverRxMTU: 33))
        #expect(try await exchange.value == 33)
        let value = (0..<512).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let reading = Task { try await client.readLong(handle: 0x0010) }
        #expect(await link.nextPDU() == [0x0A, 0x10, 0x00])
        try await link.reply(ATTReadResponse(value: Array(value[0..<32])))
        for offset in stride(from: 32, to: 512, by: 32) {
            #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, UInt8(offset & 0xFF), UInt8(offset >> 8)])
            try await link.reply(ATTReadBlobResponse(value: Array(value[offset..<offset + 32])))
        }
        #expect(try await reading.value == value)
        let next = Task { try await client.read(handle: 0x0011) }
        #expect(await link.nextPDU() == [0x0A, 0x11, 0x00])  // not a Read Blob at offset 512
        try await link.reply(ATTReadResponse(value: [2]))
        _ = try await next.value
    }
}
