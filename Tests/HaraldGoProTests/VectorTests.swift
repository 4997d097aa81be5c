import HaraldCodec
import HaraldGoPro
import Testing

/// The shared `gopro` vectors through the library: packets → assembler → response decoders.
@Suite("Open GoPro vectors through the library")
struct VectorTests {
    /// What the library makes of a vector's stream, in the vectors' terms; throws when the stream
    /// is malformed or ends mid-message.
    static func decode(_ vector: GoProStreamVector) throws -> [GoProStreamVector.Message] {
        let characteristic = try #require(GoProCharacteristic(vector.uuid))
        let (messages, assembler) = try reassemble(vector.packetBytes)
        if assembler.isAssembling {
            throw GoProPacketError.moreBytesThanAnnounced(announced: assembler.announcedLength ?? 0, received: assembler.receivedCount)
        }
        return try messages.map { message in
            if characteristic == .queryResponse {
                let response = try GoProQueryResponse(message: message)
                return .init(
                    id: Int(response.queryID.rawValue), status: Int(response.status.rawValue), payload: nil,
                    values: response.values.map { .init(id: Int($0.id), value: Hex.encode($0.value)) })
            }
            let response = try GoProResponse(message: message)
            return .init(id: Int(response.id), status: Int(response.status.rawValue), payload: Hex.encode(response.payload), values: nil)
        }
    }

    @Test(arguments: GoProVectors.decodable)
    func decodesToTheExpectedMessages(vector: GoProStreamVector) throws {
        let expected = try #require(vector.expected)
        let lowercased = expected.map { message in
            GoProStreamVector.Message(
                id: message.id, status: message.status, payload: message.payload?.lowercased(),
                values: message.values?.map { .init(id: $0.id, value: $0.value.lowercased()) })
        }
        #expect(try Self.decode(vector) == lowercased)
    }

    @Test(arguments: GoProVectors.failing)
    func malformedStreamsAreRejected(vector: GoProStreamVector) {
        #expect(throws: (any Error).self) { try Self.decode(vector) }
    }
}
