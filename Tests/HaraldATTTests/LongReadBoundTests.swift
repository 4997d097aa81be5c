import HaraldATT
import HaraldCodec
import Testing

/// A server can keep a long read going by answering every Read Blob in full; the client's memory
/// for one value is bounded all the same.
@Suite("GATT client: a long read is bounded")
struct LongReadBoundTests {
    /// ATT_MTU 23: every full part is 22 bytes. The client stops asking once the value would
    /// pass 65,535 bytes (the largest offset a Read Blob Request can carry) with a typed error,
    /// having held at most one part more than that.
    @Test func aServerThatAnswersEveryBlobInFullEndsTheReadAtTheOffsetLimit() async throws {
        var link = ScriptedLink()
        let client = link.client
        let reading = Task { try await client.readLong(handle: 0x0010) }
        let part = [UInt8](repeating: 0xAB, count: 22)
        #expect(await link.nextPDU() == [0x0A, 0x10, 0x00])
        try await link.reply(ATTReadResponse(value: part))
        // After n blobs the client holds 22 (n + 1) bytes; it asks again while that is at most
        // 65,535, so it asks 65,535 / 22 times and then stops.
        for blob in 1...(65_535 / 22) {
            let offset = UInt16(22 * blob)
            #expect(await link.nextPDU() == [0x0C, 0x10, 0x00, UInt8(offset & 0xFF), UInt8(offset >> 8)])
            try await link.reply(ATTReadBlobResponse(value: part))
        }
        await #expect(throws: GATTError.invalidResponse("value longer than 65535 bytes")) { _ = try await reading.value }
    }
}
