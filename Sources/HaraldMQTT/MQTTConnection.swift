import NIOCore
import NIOPosix
import NIOSSL

/// One TCP (or TLS) connection to a broker: packets written as bytes, packets read through the
/// frame decoder into an async stream that ends when the connection closes. The stream holds at
/// most ``inboundLimit`` packets the client has not handled yet: a broker that sends faster than
/// that gets its connection closed (the client reconnects), instead of memory growing.
struct MQTTConnection: Sendable {
    /// Packets read and not yet handled by the client.
    static let inboundLimit = 4_096

    let channel: any Channel
    let packets: AsyncThrowingStream<MQTTPacket, any Error>

    /// Opens a connection; throws when the broker cannot be reached.
    static func open(
        host: String, port: Int, tls: NIOSSLContext?, maximumPacketSize: Int, group: any EventLoopGroup
    ) async throws -> MQTTConnection {
        let (packets, continuation) = AsyncThrowingStream.makeStream(of: MQTTPacket.self, bufferingPolicy: .bufferingOldest(inboundLimit))
        // SNI and name checks take a host name; for an IP address NIOSSL checks the peer's
        // address against the certificate instead (and refuses an address as SNI).
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let serverHostname = tls == nil || isAddress ? nil : host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: serverHostname)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        MQTTPacketReader(decoder: MQTTFrameDecoder(maximumPacketSize: maximumPacketSize), continuation: continuation))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            return MQTTConnection(channel: channel, packets: packets)
        } catch {
            continuation.finish(throwing: error)
            throw error
        }
    }

    /// Writes one encoded packet; throws when the connection is gone.
    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    /// Encodes and writes a packet the client builds itself (always encodable).
    func send(_ packet: MQTTPacket) async throws {
        try await send(try packet.encode())
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Feeds the bytes read into a frame decoder and yields each whole packet; a malformed stream
/// ends the stream with the decoder's error and closes the connection.
final class MQTTPacketReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var decoder: MQTTFrameDecoder
    private let continuation: AsyncThrowingStream<MQTTPacket, any Error>.Continuation

    init(decoder: MQTTFrameDecoder, continuation: AsyncThrowingStream<MQTTPacket, any Error>.Continuation) {
        self.decoder = decoder
        self.continuation = continuation
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        decoder.append(buffer.readableBytesView)
        do {
            while let packet = try decoder.next() {
                if case .dropped = continuation.yield(packet) { throw InboundOverflow() }
            }
        } catch {
            continuation.finish(throwing: error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}

/// The client fell more than ``MQTTConnection/inboundLimit`` packets behind the broker.
struct InboundOverflow: Error {}
