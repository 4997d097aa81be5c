import NIOCore
import NIOEmbedded
import Testing

@testable import HaraldMQTT

/// The channel handler between TCP bytes and the client: packets out, and a connection closed
/// rather than a buffer grown or a malformed stream read on.
@Suite struct MQTTPacketReaderTests {
    private func reader(limit: Int) throws -> (EmbeddedChannel, AsyncThrowingStream<MQTTPacket, any Error>) {
        let (packets, continuation) = AsyncThrowingStream.makeStream(of: MQTTPacket.self, bufferingPolicy: .bufferingOldest(limit))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(MQTTPacketReader(decoder: MQTTFrameDecoder(), continuation: continuation))
        return (channel, packets)
    }

    @Test func packetsReadComeOutOfTheStreamInOrder() async throws {
        let (channel, packets) = try reader(limit: 8)
        try channel.writeInbound(ByteBuffer(bytes: [0xD0, 0x00, 0x40, 0x02, 0x00, 0x07]))
        // finish(): closes the channel and runs the embedded loop's pending work, which frees the
        // pipeline (a channel only closed keeps it, and LeakSanitizer reports it).
        _ = try channel.finish()
        var received: [MQTTPacket] = []
        for try await packet in packets { received.append(packet) }
        #expect(received == [.pingResponse, .pubAck(packetIdentifier: 7)])
    }

    @Test func aClientThatFallsTooFarBehindHasItsConnectionClosed() async throws {
        let (channel, packets) = try reader(limit: 2)
        try channel.writeInbound(ByteBuffer(bytes: [0xD0, 0x00, 0xD0, 0x00, 0xD0, 0x00]))
        #expect(!channel.isActive)
        _ = try channel.finish(acceptAlreadyClosed: true)  // ends the stream if the reader did not
        var received = 0
        await #expect(throws: InboundOverflow.self) {
            for try await _ in packets { received += 1 }
        }
        #expect(received == 2)
    }

    @Test func aMalformedStreamEndsWithTheDecodersErrorAndClosesTheConnection() async throws {
        let (channel, packets) = try reader(limit: 8)
        try channel.writeInbound(ByteBuffer(bytes: [0xF0, 0x00]))
        #expect(!channel.isActive)
        _ = try channel.finish(acceptAlreadyClosed: true)
        await #expect(throws: MQTTPacketError.unknownPacketType(15)) {
            for try await _ in packets {}
        }
    }
}
