import Testing

@testable import HaraldMQTT

/// The remaining-length varint (MQTT 3.1.1 section 2.2.3) and cutting a byte stream into packets.
@Suite struct MQTTFrameDecoderTests {
    @Test func remainingLengthUsesOneToFourBytesAtTheSpecsBoundaries() throws {
        let cases: [(Int, [UInt8])] = [
            (0, [0x00]), (127, [0x7F]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
            (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F]),
        ]
        for (value, bytes) in cases {
            var encoded: [UInt8] = []
            try MQTTRemainingLength.encode(value, into: &encoded)
            #expect(encoded == bytes)
            let decoded = try MQTTRemainingLength.decode(bytes, from: 0)
            #expect(decoded?.value == value)
            #expect(decoded?.size == bytes.count)
        }
    }

    @Test func aLengthPastFourBytesIsRefused() {
        var bytes: [UInt8] = []
        #expect(throws: MQTTPacketError.packetTooLarge(declared: 268_435_456, maximum: 268_435_455)) {
            try MQTTRemainingLength.encode(268_435_456, into: &bytes)
        }
    }

    @Test func aFifthLengthByteIsMalformed() {
        var decoder = MQTTFrameDecoder()
        decoder.append([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        #expect(throws: MQTTPacketError.malformedRemainingLength) { try decoder.next() }
    }

    @Test func aPacketSplitAcrossReadsComesOutWhenWhole() throws {
        let bytes = try MQTTPacket.publish(MQTTPublish(topic: "a/b", payload: [1, 2, 3])).encode()
        var decoder = MQTTFrameDecoder()
        for byte in bytes.dropLast() {
            decoder.append([byte])
            #expect(try decoder.next() == nil)
        }
        decoder.append([bytes.last!])
        #expect(try decoder.next() == .publish(MQTTPublish(topic: "a/b", payload: [1, 2, 3])))
        #expect(decoder.bufferedCount == 0)
    }

    @Test func severalPacketsInOneReadComeOutInOrder() throws {
        var decoder = MQTTFrameDecoder()
        decoder.append([0xD0, 0x00, 0x40, 0x02, 0x00, 0x05, 0xC0])
        #expect(try decoder.next() == .pingResponse)
        #expect(try decoder.next() == .pubAck(packetIdentifier: 5))
        #expect(try decoder.next() == nil)
        decoder.append([0x00])
        #expect(try decoder.next() == .pingRequest)
    }

    @Test func aDeclaredLengthOverTheMaximumThrowsBeforeTheBodyArrives() {
        var decoder = MQTTFrameDecoder(maximumPacketSize: 100)
        decoder.append([0x30, 0xE5, 0x00])  // 101 bytes declared, none sent
        #expect(throws: MQTTPacketError.packetTooLarge(declared: 101, maximum: 100)) { try decoder.next() }
    }

    @Test func theDefaultMaximumIsOneMebibyte() {
        #expect(MQTTFrameDecoder().maximumPacketSize == 1_048_576)
    }

    @Test func aMalformedBodyInTheStreamThrowsItsError() {
        var decoder = MQTTFrameDecoder()
        decoder.append([0x40, 0x02, 0x00, 0x00])
        #expect(throws: MQTTPacketError.zeroPacketIdentifier) { try decoder.next() }
    }
}
