import HaraldTerminal
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `harald l2cap` copies between stdin/stdout and a channel, and how it decides to stop.
@Suite("Raw streams and the linger rule")
struct RawStreamTests {
    static let everyByteValue = (0...255).map { UInt8($0) }

    /// A pipe holding `bytes`, its writing end closed; returns the reading end.
    static func pipeHolding(_ bytes: [UInt8]) throws -> Int32 {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        #expect(RawStream.write(ends[1], bytes) == nil)
        close(ends[1])
        return ends[0]
    }

    /// Reads `descriptor` to its end in pieces of `size`.
    static func readAll(_ descriptor: Int32, size: Int) -> [UInt8] {
        var all: [UInt8] = []
        while case let .bytes(piece) = RawStream.read(descriptor, upTo: size) { all += piece }
        return all
    }

    @Test func everyByteValueGoesThroughUnchangedInBothDirections() throws {
        let bytes = Self.everyByteValue + Self.everyByteValue.reversed() + [0x0D, 0x0A, 0x0A, 0x0D, 0x00, 0x1A, 0xFF, 0xFE]
        let reader = try Self.pipeHolding(bytes)
        defer { close(reader) }
        #expect(Self.readAll(reader, size: 7) == bytes)
    }

    @Test func aReadGivesAtMostTheCountAskedFor() throws {
        let reader = try Self.pipeHolding(Self.everyByteValue)
        defer { close(reader) }
        #expect(RawStream.read(reader, upTo: 16) == .bytes(Array(Self.everyByteValue[0..<16])))
    }

    @Test func theEndOfTheInputIsReportedOnceTheWriterHasClosed() throws {
        let reader = try Self.pipeHolding([])
        defer { close(reader) }
        #expect(RawStream.read(reader, upTo: 64) == .end)
    }

    @Test func writingToAPipeNobodyReadsReportsTheBrokenPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect(RawStream.write(ends[1], [1, 2, 3]) == EPIPE)
    }

    @Test func aBadDescriptorFailsInsteadOfTrapping() {
        if case .failed = RawStream.read(-1, upTo: 8) {} else { Issue.record("expected a failed read") }
        #expect(RawStream.write(-1, [1]) == EBADF)
    }

    @Test func lingerHasNoDeadlineWhileTheInputRuns() {
        #expect(StreamLinger.deadline(inputEnded: nil as ContinuousClock.Instant?, lastPeerData: .now, linger: .seconds(1)) == nil)
        #expect(!StreamLinger.hasEnded(at: ContinuousClock.now.advanced(by: .seconds(100)), inputEnded: nil, lastPeerData: nil, linger: .seconds(1)))
    }

    @Test func lingerCountsFromTheInputsEndWhenThePeerWasQuieterSince() {
        let start = ContinuousClock.now
        let ended = start.advanced(by: .seconds(5))
        #expect(StreamLinger.deadline(inputEnded: ended, lastPeerData: start, linger: .seconds(1)) == ended.advanced(by: .seconds(1)))
        #expect(StreamLinger.deadline(inputEnded: ended, lastPeerData: nil, linger: .seconds(1)) == ended.advanced(by: .seconds(1)))
    }

    @Test func peerDataAfterTheInputsEndPushesTheDeadlineBack() {
        let ended = ContinuousClock.now
        let data = ended.advanced(by: .milliseconds(700))
        #expect(StreamLinger.deadline(inputEnded: ended, lastPeerData: data, linger: .seconds(1)) == data.advanced(by: .seconds(1)))
        #expect(!StreamLinger.hasEnded(at: ended.advanced(by: .milliseconds(1500)), inputEnded: ended, lastPeerData: data, linger: .seconds(1)))
        #expect(StreamLinger.hasEnded(at: data.advanced(by: .seconds(1)), inputEnded: ended, lastPeerData: data, linger: .seconds(1)))
    }

    @Test func aZeroLingerEndsAsSoonAsTheInputDoes() {
        let ended = ContinuousClock.now
        #expect(StreamLinger.hasEnded(at: ended, inputEnded: ended, lastPeerData: nil, linger: .zero))
    }

    @Test func numbersAreDecimalOrHexadecimalAfter0x() {
        #expect(NumberArgument.value(of: "128") == 128)
        #expect(NumberArgument.value(of: "0x80") == 0x80)
        #expect(NumberArgument.value(of: "0X00ff") == 0xFF)
        for bad in ["", "0x", "-1", "12a", "0x1g", " 1", "1.5", "٣"] { #expect(NumberArgument.value(of: bad) == nil, "\(bad)") }
        #expect(NumberArgument.value(of: "0x1" + String(repeating: "0", count: 20)) == nil)
    }
}

/// The throughput protocol of Bumble's `bench` app, as `harald l2cap bench` speaks it.
@Suite("Throughput bench protocol")
struct ThroughputBenchTests {
    @Test func packetsAreLaidOutAsBumblesBenchPacksThem() {
        // struct.pack("<BBII", 1, 1, 0x01020304, 0x0A0B0C0D) + b"xy"; "<BBI" for the ack.
        #expect(ThroughputBenchPacket.reset.bytes == [0])
        #expect(
            ThroughputBenchPacket.sequence(number: 0x0102_0304, flags: 1, timestamp: 0x0A0B_0C0D, payload: [0x78, 0x79]).bytes
                == [1, 1, 4, 3, 2, 1, 0x0D, 0x0C, 0x0B, 0x0A, 0x78, 0x79])
        #expect(ThroughputBenchPacket.ack(number: 7, flags: 1).bytes == [2, 1, 7, 0, 0, 0])
    }

    @Test func theLengthGoesInFrontBigEndian() {
        let packet = ThroughputBenchPacket.sequence(number: 0, flags: 0, timestamp: 0, payload: [UInt8](repeating: 9, count: 290))
        #expect(packet.framed?.prefix(2) == [0x01, 0x2C])
        #expect(ThroughputBenchPacket.sequence(number: 0, flags: 0, timestamp: 0, payload: [UInt8](repeating: 0, count: 0xFFFF)).framed == nil)
    }

    @Test func aSequencePacketWithEveryByteValueDecodesToItself() {
        let packet = ThroughputBenchPacket.sequence(number: 0xFFFF_FFFE, flags: 0xFF, timestamp: 0x8000_0001, payload: RawStreamTests.everyByteValue)
        #expect(ThroughputBenchPacket(bytes: packet.bytes) == packet)
        #expect(ThroughputBenchPacket(bytes: ThroughputBenchPacket.ack(number: 3, flags: 1).bytes) == .ack(number: 3, flags: 1))
        #expect(ThroughputBenchPacket(bytes: [0]) == .reset)
    }

    @Test func unknownOrShortPacketsAreRejectedWithoutTrapping() {
        for bad: [UInt8] in [[], [3], [0xFF, 0], [1, 0, 0, 0, 0, 0, 0, 0, 0], [2, 1, 0, 0, 0]] {
            #expect(ThroughputBenchPacket(bytes: bad) == nil, "\(bad)")
        }
    }

    @Test func theLastFlagMarksTheLastPacket() {
        #expect(ThroughputBenchPacket.sequence(number: 1, flags: 1, timestamp: 0, payload: []).isLast)
        #expect(!ThroughputBenchPacket.sequence(number: 1, flags: 0, timestamp: 0, payload: []).isLast)
        #expect(!ThroughputBenchPacket.ack(number: 1, flags: 1).isLast)
    }

    @Test func theStreamIsCutBackIntoPacketsWhateverThePiecesItArrivesIn() throws {
        let packets: [ThroughputBenchPacket] = [
            .reset, .sequence(number: 0, flags: 0, timestamp: 12, payload: RawStreamTests.everyByteValue),
            .sequence(number: 1, flags: 1, timestamp: 99, payload: []), .ack(number: 1, flags: 1),
        ]
        let stream = packets.flatMap { $0.framed ?? [] }
        for size in [1, 2, 3, 7, 64, 255, stream.count] {
            var reassembler = ThroughputBenchReassembler()
            var found: [ThroughputBenchPacket?] = []
            for start in stride(from: 0, to: stream.count, by: size) {
                found += reassembler.append(stream[start..<min(start + size, stream.count)]).map(ThroughputBenchPacket.init(bytes:))
            }
            #expect(found == packets, "pieces of \(size)")
            #expect(reassembler.pendingCount == 0)
        }
    }

    @Test func anUnfinishedPacketWaitsForTheRestOfItsBytes() {
        var reassembler = ThroughputBenchReassembler()
        #expect(reassembler.append([0x00, 0x03, 2, 1]).isEmpty)
        #expect(reassembler.pendingCount == 4)
        #expect(reassembler.append([7, 0xEE]) == [[2, 1, 7]])
        #expect(reassembler.pendingCount == 1)
    }

    @Test func aMebibyteInKibibytePacketsIs1024PacketsTheLastFlagged() throws {
        let plan = try #require(ThroughputBenchPlan(totalBytes: 1 << 20, packetSize: 1024))
        #expect(plan.packetCount == 1024)
        #expect(plan.totalBytes == 1 << 20)
        #expect(plan.packet(0, timestamp: 0).framed?.count == 1024)
        #expect(!plan.packet(1022, timestamp: 0).isLast)
        #expect(plan.packet(1023, timestamp: 5) == .sequence(number: 1023, flags: 1, timestamp: 5, payload: [UInt8](repeating: 0, count: 1012)))
    }

    @Test func aTotalIsRoundedUpToWholePackets() {
        #expect(ThroughputBenchPlan(totalBytes: 1000, packetSize: 300)?.packetCount == 4)
        #expect(ThroughputBenchPlan(totalBytes: 1, packetSize: 12)?.totalBytes == 12)
    }

    @Test func packetSizesWithoutRoomForTheHeaderOrPastTheLengthFieldAreRefused() {
        #expect(ThroughputBenchPlan(totalBytes: 100, packetSize: 11) == nil)
        #expect(ThroughputBenchPlan(totalBytes: 100, packetSize: 0x10002) == nil)
        #expect(ThroughputBenchPlan(totalBytes: 0, packetSize: 100) == nil)
        #expect(ThroughputBenchPlan(totalBytes: 100, packetSize: 0x10001) != nil)
    }

    @Test func figuresAreInKilobitsPerSecond() {
        let figures = ThroughputFigures(bytes: 1 << 20, seconds: 4)
        #expect(figures.kbps == 2097.152)
        #expect(figures.text == "1048576 bytes in 4.000 s: 2097.2 kbps")
        #expect(ThroughputFigures(bytes: 10, seconds: 0).kbps == 0)
    }
}
