import Foundation
import HaraldCodec
import HaraldGoPro

/// The `gopro` and `fragmentation` cases of the shared vectors, copied into
/// `Resources/gopro-vectors.json`.
struct GoProStreamVector: Decodable, Sendable, CustomStringConvertible {
    struct Value: Decodable, Sendable, Equatable {
        var id: Int
        var value: String
    }

    struct Message: Decodable, Sendable, Equatable {
        var id: Int
        var status: Int
        var payload: String?
        var values: [Value]?
    }

    var uuid: String
    var packets: [String]
    var source: String
    var expected: [Message]?
    var error: Bool?

    var mustFail: Bool { error == true }
    var packetBytes: [[UInt8]] { packets.map { (try? [UInt8](hex: $0)) ?? [] } }
    var description: String { "\(uuid) \(source)" }
}

struct FragmentationVector: Decodable, Sendable, CustomStringConvertible {
    var message: String
    var packets: [String]
    var source: String

    var messageBytes: [UInt8] { (try? [UInt8](hex: message)) ?? [] }
    var description: String { source }
}

enum GoProVectors {
    private struct File: Decodable {
        var gopro: [GoProStreamVector]
        var fragmentation: [FragmentationVector]
    }

    private static let file: File? = {
        guard let url = Bundle.module.url(forResource: "gopro-vectors", withExtension: "json"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return try? JSONDecoder().decode(File.self, from: data)
    }()

    static let streams: [GoProStreamVector] = file?.gopro ?? []
    static let decodable = streams.filter { !$0.mustFail }
    static let failing = streams.filter(\.mustFail)
    static let fragmentation: [FragmentationVector] = file?.fragmentation ?? []
}

/// Packets for `message` with an Extended 16-bit start header (what only the camera sends).
func extended16Packets(_ message: [UInt8], packetSize: Int = 20) -> [[UInt8]] {
    let firstCount = min(message.count, packetSize - 3)
    var packets = [[0x40, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message[0..<firstCount]]
    var offset = firstCount
    var counter: UInt8 = 0
    while offset < message.count {
        let count = min(message.count - offset, packetSize - 1)
        packets.append([0x80 | counter] + message[offset..<offset + count])
        offset += count
        counter = (counter + 1) & 0x0F
    }
    return packets
}

/// Feeds `packets` to a fresh assembler and collects the complete messages.
func reassemble(_ packets: [[UInt8]]) throws(GoProPacketError) -> (messages: [[UInt8]], assembler: GoProMessageAssembler) {
    var assembler = GoProMessageAssembler()
    var messages: [[UInt8]] = []
    for packet in packets {
        if let message = try assembler.append(packet) { messages.append(message) }
    }
    return (messages, assembler)
}
