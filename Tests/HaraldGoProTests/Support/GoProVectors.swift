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

/// The 20-packet "all statuses" stream of the Open GoPro SDK's tests (protocols.md A.7): 370 bytes,
/// 88 triplets, continuation counter wrapping after 0x8F.
enum AllStatusesStream {
    static let packetsHex = [
        "21 72 13 00 01 01 01 02 01 04 03 01 00 04 01 ff 06 01 00 08",
        "80 01 00 09 01 00 0a 01 00 0b 01 00 0d 04 00 00 00 00 0e 04",
        "81 00 00 00 00 11 01 01 13 01 03 14 01 01 15 04 00 00 3e a4",
        "82 16 01 00 17 01 00 18 01 00 1a 01 00 1b 01 00 1c 01 52 1d",
        "83 00 1e 0a 47 50 32 34 35 30 30 34 35 36 1f 01 00 20 01 01",
        "84 21 01 00 22 04 00 00 08 73 23 04 00 00 0f d6 24 04 00 00",
        "85 00 40 25 04 00 00 00 35 26 04 00 00 00 40 27 04 00 00 00",
        "86 35 28 12 25 31 42 25 30 34 25 30 36 25 30 37 25 33 31 25",
        "87 30 44 29 01 00 2a 01 00 2d 01 00 31 04 00 00 00 00 36 08",
        "88 00 00 00 00 01 95 82 60 37 01 01 38 01 01 39 04 00 6e 2f",
        "89 81 3a 01 00 3b 04 00 00 00 00 3c 04 00 00 01 f4 3d 01 02",
        "8a 3e 04 00 00 00 00 3f 01 00 40 04 00 00 04 39 41 01 00 42",
        "8b 01 64 43 01 64 44 01 00 45 01 01 46 01 35 4a 01 00 4b 01",
        "8c 00 4c 01 01 4d 01 01 4e 01 00 4f 01 00 51 01 01 52 01 01",
        "8d 53 01 01 55 01 00 56 01 00 58 01 00 59 01 0c 5a 01 01 5b",
        "8e 01 00 5d 04 00 00 00 02 5e 04 00 01 00 00 5f 04 00 02 00",
        "8f 00 60 04 00 00 03 e8 61 04 00 00 00 02 62 04 01 00 00 02",
        "80 63 04 00 00 05 47 64 04 00 00 00 00 65 01 00 66 01 00 67",
        "81 01 00 68 01 01 69 01 00 6a 01 00 6b 04 ff ff ff ff 6c 01",
        "82 00 6d 01 00 6e 01 00 71 01 00",
    ]
    static let packets: [[UInt8]] = packetsHex.map { (try? [UInt8](hex: $0)) ?? [] }
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
