import HaraldCodec
import HaraldGoPro

/// The Open GoPro packetizer and message decoders.
let goProTargets: [FuzzTarget] = [
    FuzzTarget("GoPro.PacketStream", checkGoProPacketStream),
    FuzzTarget("GoPro.FragmentReassemble", checkGoProFragmentRoundTrip),
    FuzzTarget("GoPro.Messages", checkGoProMessages),
]

/// The input as a stream of packets, each prefixed by one length byte (modulo 24), fed to one
/// assembler: it never holds more than the announced length, never announces more than 65535
/// bytes, is idle after an error (except an empty packet), and every complete message has the
/// announced length and goes through the message decoders.
@Sendable func checkGoProPacketStream(_ bytes: [UInt8]) {
    var assembler = GoProMessageAssembler()
    var offset = 0
    while offset < bytes.count {
        let length = min(Int(bytes[offset]) % 24, bytes.count - offset - 1)
        let packet = Array(bytes[(offset + 1)..<(offset + 1 + length)])
        offset += 1 + length
        let announced: Int?
        if let first = packet.first, first & 0x80 == 0 {
            announced = (try? GoProPacketHeader.parse(packet))?.header.messageLength
        } else {
            announced = assembler.announcedLength
        }
        do {
            if let message = try assembler.append(packet) {
                require(message.count == announced, "GoPro message of \(message.count) bytes, \(announced ?? -1) announced")
                checkGoProMessages(message)
            }
        } catch {
            blackHole(error.description)
            require(!assembler.isAssembling || error == .emptyPacket, "GoPro assembler busy after \(error)")
        }
        if let current = assembler.announcedLength {
            require(current <= 65535 && assembler.receivedCount < current, "GoPro assembler holds \(assembler.receivedCount) of \(current)")
        }
    }
}

/// The first byte picks a packet size (3…66), the rest is the message: its packets reassemble
/// into exactly the message. Messages longer than the 8191 bytes a sent message can announce are
/// skipped (the fragmenter rightly refuses them), so the target works with any `-max_len`.
@Sendable func checkGoProFragmentRoundTrip(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let message = Array(bytes.dropFirst())
    guard message.count <= GoProPacketHeader.maximumExtended13Length else { return }
    let packetSize = 3 + Int(first) % 64
    do {
        var assembler = GoProMessageAssembler()
        var result: [[UInt8]] = []
        for packet in try GoProFragmenter.fragment(message, packetSize: packetSize) {
            require(packet.count <= packetSize, "GoPro packet of \(packet.count) bytes, size \(packetSize)")
            if let done = try assembler.append(packet) { result.append(done) }
        }
        require(result == [message], "GoPro fragments of \(message.hexString) reassemble to \(result)")
    } catch {
        fatalError("GoPro fragment → reassemble failed: \(error)")
    }
}

/// Every message decoder on the raw input; walked values stay inside the message.
@Sendable func checkGoProMessages(_ bytes: [UInt8]) {
    touch { () throws(ByteDecodingError) in
        let response = try GoProResponse(message: bytes)
        blackHole(response.status.description)
        blackHole(response.commandID.description)
    }
    touch { () throws(ByteDecodingError) in
        let response = try GoProQueryResponse(message: bytes)
        var end = 2
        for entry in response.values {
            end += 2 + entry.value.count
            require(response.values.contains(entry.id), "GoPro value \(entry.id) walked but not present")
            blackHole(response.values.integer(entry.id))
            blackHole(response.values.signedInteger(entry.id))
            blackHole(response.values.bool(entry.id))
            blackHole(response.values.string(entry.id))
        }
        require(end == bytes.count, "GoPro values end at \(end) of \(bytes.count)")
        blackHole(response.values.dictionary.count)
    }
    touch { () throws(ByteDecodingError) in _ = try GoProPush(message: bytes) }
    touch { () throws(ByteDecodingError) in _ = try GoProHardwareInfo(payload: bytes) }
    touch { () throws(ByteDecodingError) in _ = try GoProOpenGoProVersion(payload: bytes) }
    touch { () throws(ByteDecodingError) in _ = try GoProHardwareInfo(response: GoProResponse(message: bytes)) }
}
