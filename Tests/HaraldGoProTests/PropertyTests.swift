import HaraldCodec
import HaraldGoPro
import PropertyBased
import Testing

@Suite("Open GoPro packetizer properties")
struct PropertyTests {
    @Test func fragmentThenReassembleIsIdentityForEveryLengthUpTo8191() throws {
        var generator = SystemRandomNumberGenerator()
        var source = [UInt8](repeating: 0, count: 8191)
        for index in source.indices { source[index] = generator.next() }
        for length in 0...8191 {
            // Fresh contents per length: a rotating window of random bytes, plus a random first byte.
            let start = Int.random(in: 0..<8191, using: &generator)
            var message = Array(source[start...] + source[..<start]).prefix(length).map { $0 }
            if !message.isEmpty { message[0] = generator.next() }
            let packets = try GoProFragmenter.fragment(message)
            guard packets.allSatisfy({ $0.count <= 20 }) else { Issue.record("length \(length): packet above 20 bytes"); return }
            let (messages, assembler) = try reassemble(packets)
            guard messages == [message], !assembler.isAssembling else {
                Issue.record("length \(length): reassembled \(messages.map(\.count)) bytes")
                return
            }
        }
    }

    @Test func fragmentThenReassembleIsIdentityForAnyPacketSize() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...8191), Gen.int(in: 3...517), Gen<UInt8>.value()
        ) { length, packetSize, seed in
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
            let packets = try GoProFragmenter.fragment(message, packetSize: packetSize)
            #expect(packets.allSatisfy { $0.count <= packetSize })
            #expect(packets.count == GoProFragmenter.packetCount(messageLength: length, packetSize: packetSize))
            #expect(try reassemble(packets).messages == [message])
        }
    }

    @Test func extended16StreamsReassembleUpTo65535Bytes() async {
        await propertyCheck(count: 100, input: Gen.int(in: 0...65535), Gen.int(in: 4...244)) { length, packetSize in
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ length) }
            let (messages, assembler) = try reassemble(extended16Packets(message, packetSize: packetSize))
            #expect(messages == [message])
            #expect(!assembler.isAssembling)
        }
    }

    @Test(arguments: [0, 1, 17, 8191, 8192, 65534, 65535])
    func extended16StreamsOfEdgeLengthsReassemble(length: Int) throws {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        #expect(try reassemble(extended16Packets(message)).messages == [message])
    }

    @Test func randomPacketStreamsNeverTrapAndStayWithinTheAnnouncedLength() async {
        // Packets of random bytes, with the first byte biased towards each header type.
        let headers: [UInt8] = [0x00, 0x05, 0x1F, 0x20, 0x3F, 0x40, 0x5F, 0x60, 0x80, 0x8F, 0xF0]
        let packet = Gen.uint8().array(of: 0...23).map { bytes -> [UInt8] in
            guard bytes.count >= 2 else { return bytes }
            return [headers[Int(bytes[0]) % headers.count] | bytes[1] & 0x0F] + bytes.dropFirst(2)
        }
        await propertyCheck(count: 300, input: packet.array(of: 0...40)) { packets in
            var assembler = GoProMessageAssembler()
            for packet in packets {
                do {
                    if let message = try assembler.append(packet) {
                        #expect(message.count <= 65535)
                    }
                } catch {
                    #expect(!assembler.isAssembling || (error as? GoProPacketError) == .emptyPacket)
                }
                if let announced = assembler.announcedLength {
                    #expect(announced <= 65535)
                    #expect(assembler.receivedCount < announced)
                }
            }
        }
    }

    @Test func randomMessagesNeverTrapTheDecoders() async {
        await propertyCheck(count: 500, input: Gen.uint8().array(of: 0...80)) { message in
            _ = try? GoProResponse(message: message)
            if let response = try? GoProQueryResponse(message: message) {
                // Every walked triplet lies inside the message.
                #expect(response.values.reduce(2) { $0 + 2 + $1.value.count } == message.count)
                for entry in response.values { #expect(response.values.contains(entry.id)) }
            }
            _ = try? GoProPush(message: message)
            _ = try? GoProHardwareInfo(payload: message)
            _ = try? GoProOpenGoProVersion(payload: message)
        }
    }
}
