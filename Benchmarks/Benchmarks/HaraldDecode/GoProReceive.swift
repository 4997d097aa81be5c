import Benchmark
import Clobber
import Foundation
import HaraldGoPro

// The Open GoPro receive path (issue 7): notifications on the query-response characteristic →
// reassembled message → status values by ID, two ways, on two streams:
// - GoProAllStatuses: the SDK's 20-packet "get all statuses" answer (protocols.md A.7: 370 bytes,
//   88 triplets, straddling packet boundaries, continuation counter wrapping);
// - GoProSinglePacket: a one-packet answer (`05 12 00 02 01 09`, setting 2 = 9).
// One benchmark iteration is one whole message; both ways end with the same three look-ups.

/// What both ways extract from a message, so `requireAgreement`-style checks compare like with like.
struct GoProReceiveSummary: Equatable {
    /// Triplets in the response.
    var count: Int
    /// The value of ID 2 (battery bars, or the resolution setting) as an integer.
    var id2: Int?
    /// The value of ID 70 (internal battery percentage) as an integer.
    var id70: Int?
}

let goProAllStatusesPackets: [[UInt8]] = [
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
].map { text in text.split(separator: " ").map { UInt8($0, radix: 16)! } }

let goProSinglePacket: [[UInt8]] = [[0x05, 0x12, 0x00, 0x02, 0x01, 0x09]]

/// HaraldGoPro: one assembler per characteristic, the message buffer allocated once at the start
/// packet, the TLV walked in place by `GoProQueryResponse`.
enum HaraldGoProReceive {
    /// Out of line, as every way in these benchmarks is measured (see `RecordDecoding`).
    @inline(never)
    static func receive(_ packets: [[UInt8]], into assembler: inout GoProMessageAssembler) -> GoProReceiveSummary? {
        for packet in packets {
            do {
                guard let message = try assembler.append(packet) else { continue }
                let response = try GoProQueryResponse(message: message)
                let values = response.values
                return GoProReceiveSummary(
                    count: values.count, id2: values.integer(2).map { Int($0) }, id70: values.integer(70).map { Int($0) })
            } catch {
                return nil
            }
        }
        return nil
    }
}

/// The commonly published approach, written faithfully: every byte of a notification becomes a
/// two-digit hex `String`, the message is kept as `[String]` in static variables with a
/// remaining-bytes counter, and the TLV is walked by slicing that array and turning hex strings
/// back into `Int`s, into an `[Int: [Int]]` dictionary.
enum HexStringReceive {
    // Global mutable state, as in the published parser; the benchmark runs it on one task only.
    nonisolated(unsafe) static var message: [String] = []
    nonisolated(unsafe) static var bytesRemaining = 0

    /// Takes one notification; true when the message is complete.
    static func accumulate(_ data: [UInt8]) -> Bool {
        var buf = data.map { String(format: "%02x", $0) }
        let first = Int(buf[0], radix: 16) ?? 0
        if first & 0x80 != 0 {
            buf.removeFirst()  // continuation header
        } else {
            message = []
            switch (first & 0x60) >> 5 {
            case 0:
                bytesRemaining = first & 0x1F
                buf.removeFirst()
            case 1:
                bytesRemaining = ((first & 0x1F) << 8) + (Int(buf[1], radix: 16) ?? 0)
                buf.removeFirst(2)
            case 2:
                bytesRemaining = ((Int(buf[1], radix: 16) ?? 0) << 8) + (Int(buf[2], radix: 16) ?? 0)
                buf.removeFirst(3)
            default:
                return false
            }
        }
        message.append(contentsOf: buf)
        bytesRemaining -= buf.count
        return bytesRemaining == 0
    }

    /// Walks the query response's triplets.
    static func parse() -> [Int: [Int]] {
        var buf = message
        var result: [Int: [Int]] = [:]
        guard buf.count >= 2 else { return result }
        buf = Array(buf[2...])  // query ID and status
        while buf.count >= 2 {
            let id = Int(buf[0], radix: 16) ?? 0
            let length = Int(buf[1], radix: 16) ?? 0
            guard buf.count >= 2 + length else { break }
            result[id] = buf[2..<(2 + length)].map { Int($0, radix: 16) ?? 0 }
            buf = Array(buf[(2 + length)...])
        }
        return result
    }

    static func integer(_ bytes: [Int]?) -> Int? {
        guard let bytes, !bytes.isEmpty else { return nil }
        return bytes.reduce(0) { $0 << 8 | $1 }
    }

    @inline(never)
    static func receive(_ packets: [[UInt8]]) -> GoProReceiveSummary? {
        for packet in packets where accumulate(packet) {
            let values = parse()
            return GoProReceiveSummary(count: values.count, id2: integer(values[2]), id70: integer(values[70]))
        }
        return nil
    }
}

func registerGoProReceiveBenchmarks() {
    for (shape, packets) in [("GoProAllStatuses", goProAllStatusesPackets), ("GoProSinglePacket", goProSinglePacket)] {
        var assembler = GoProMessageAssembler()
        let harald = HaraldGoProReceive.receive(packets, into: &assembler)
        let baseline = HexStringReceive.receive(packets)
        precondition(harald != nil && harald == baseline, "\(shape): \(String(describing: harald)) vs \(String(describing: baseline))")
        if shape == "GoProAllStatuses" {
            // 88 triplets with distinct IDs: the counts agree only if both walks are complete.
            precondition(harald?.count == 88, "\(shape): \(String(describing: harald))")
        }

        Benchmark("\(shape)/HaraldGoPro", configuration: decodeConfiguration) { benchmark in
            var input = packets
            var assembler = GoProMessageAssembler()
            for _ in benchmark.scaledIterations {
                clobber(&input)
                blackHole(HaraldGoProReceive.receive(input, into: &assembler))
            }
        }
        Benchmark("\(shape)/hex strings (baseline)", configuration: decodeConfiguration) { benchmark in
            var input = packets
            for _ in benchmark.scaledIterations {
                clobber(&input)
                blackHole(HexStringReceive.receive(input))
            }
        }
    }
}
