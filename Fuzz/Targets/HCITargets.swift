import HaraldCodec
import HaraldHCI

/// The HCI host stack's parsers (HaraldHCI): events, ACL data packets, the H4 stream parser and
/// L2CAP reassembly, all fed bytes as a controller (or a TCP peer posing as one) could send them.
let hciTargets: [FuzzTarget] = [
    .decoding(HCIEvent.self),
    FuzzTarget("ACLDataPacket", { checkStableValue(ACLDataPacket.self, $0) }),
    FuzzTarget("H4Parser", checkH4Parser),
    FuzzTarget("L2CAPReassembler", checkL2CAPReassembly),
]

/// Feeds the stream in chunks whose sizes come from the input itself, and checks that the
/// packets found do not depend on how the stream was cut. Each packet is decoded as what its
/// indicator says it is.
@Sendable func checkH4Parser(_ bytes: [UInt8]) {
    guard let cut = bytes.first else { return }
    let stream = Array(bytes.dropFirst())
    var whole = H4Parser()
    let packets = whole.feed(stream)
    var chunked = H4Parser()
    var pieces: [HCIPacket] = []
    var start = 0
    var step = Int(cut % 7) + 1
    while start < stream.count {
        let end = min(stream.count, start + step)
        pieces += chunked.feed(stream[start..<end])
        start = end
        step = step % 7 + 1
    }
    require(pieces == packets, "H4Parser: \(stream.hexString) gives different packets when fed in pieces")
    require(chunked.error == whole.error, "H4Parser: \(stream.hexString) fails differently when fed in pieces")
    for packet in packets {
        blackHole(packet.description)
        switch packet.type {
        case .event: touch { () throws(ByteDecodingError) in blackHole(try HCIEvent(packet: packet)) }
        case .acl: touch { () throws(ByteDecodingError) in blackHole(try ACLDataPacket(decoding: packet.payload)) }
        default: break
        }
    }
}

/// Splits the input into ACL packets (each a length byte and that many bytes) and reassembles
/// them; every PDU produced must fit the announced size and the reassembler's limit.
@Sendable func checkL2CAPReassembly(_ bytes: [UInt8]) {
    var reassembler = L2CAPReassembler(maximumPDUSize: 64)
    var index = 0
    while index < bytes.count {
        let length = Int(bytes[index])
        let end = min(bytes.count, index + 1 + length)
        let chunk = Array(bytes[(index + 1)..<end])
        index = end
        guard let packet = try? ACLDataPacket(decoding: chunk) else { continue }
        if let pdu = reassembler.add(packet) {
            require(pdu.payload.count + 4 <= 64, "L2CAPReassembler: a PDU of \(pdu.payload.count) bytes passed the 64-byte limit")
        }
    }
    blackHole(reassembler.problems)
}
