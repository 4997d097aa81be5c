import HaraldATT
import HaraldCore
import HaraldTestSupport

/// A GATT server whose client is the test itself, sending raw PDUs.
struct RawClient {
    let server: GATTServer
    let connection: GATTConnectionID
    let bearer: ATTMemoryBearer
    let clock: ManualClock
    var events: AsyncStream<ATTBearerEvent>.Iterator

    init(services: [GATTServiceDefinition] = SampleDevice.services, configuration: GATTServer.Configuration = .exactLayout()) async throws {
        let clock = ManualClock()
        let (central, peripheral) = ATTMemoryBearer.pair(mtu: 23)
        server = try GATTServer(services: services, clock: clock, configuration: configuration)
        connection = await server.attach(peripheral)
        bearer = central
        events = central.events.makeAsyncIterator()
        self.clock = clock
    }

    /// The next PDU from the server (nil once closed).
    mutating func next() async -> [UInt8]? {
        if case .received(let bytes) = await events.next() { return bytes }
        return nil
    }

    /// Sends raw bytes and returns the server's next PDU.
    mutating func exchange(_ bytes: [UInt8]) async throws -> [UInt8]? {
        try await bearer.send(bytes)
        return await next()
    }

    mutating func exchange(_ pdu: some ATTPDUCodable) async throws -> ATTPDU? {
        guard let bytes = try await exchange(pdu.pduBytes()) else { return nil }
        return try ATTPDU(decoding: bytes)
    }
}

func errorPDU(_ request: ATTOpcode, _ handle: UInt16, _ code: ATTErrorCode) -> ATTPDU {
    .errorResponse(ATTErrorResponse(requestOpcode: request, handle: handle, error: code))
}
