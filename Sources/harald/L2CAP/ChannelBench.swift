import Harald
import HaraldCore
import HaraldTerminal

/// One run of the throughput protocol (``ThroughputBenchPacket``) over an open channel: sending,
/// receiving or both at once.
struct ChannelBench: Sendable {
    struct Result: Sendable {
        var direction: L2CAPBench.Direction
        var figures: ThroughputFigures
    }

    let direction: L2CAPBench.Direction
    let plan: ThroughputBenchPlan
    let timeout: Duration
    let progress: ProgressDisplay

    /// Bytes of packets handed to the channel in one write (cut into SDUs of the peer's MTU).
    static let writeSize = 16 * 1024

    /// Runs the transfers the direction asks for, then closes the channel.
    func run(on channel: L2CAPChannel) async throws -> [Result] {
        let writer = SerialChannelWriter(channel)
        let (acks, acknowledging) = AsyncStream.makeStream(of: Void.self)
        let (transfers, finishing) = AsyncStream.makeStream(of: ThroughputFigures.self)
        let reader = Task { await Self.read(channel, writer: writer, acks: acknowledging, transfers: finishing) }
        defer { reader.cancel() }
        var results: [Result] = []
        do {
            try await withThrowingTaskGroup(of: Result.self) { group in
                if direction.sends { group.addTask { Result(direction: .send, figures: try await send(writer, acks: acks)) } }
                if direction.receives {
                    group.addTask {
                        for await figures in transfers { return Result(direction: .receive, figures: figures) }
                        throw BluetoothError.channelClosed(await channel.closeReason() ?? .remoteRequest)
                    }
                }
                for try await result in group { results.append(result) }
            }
        } catch {
            await channel.close()
            throw error
        }
        progress.finish()
        await channel.close()
        return results.sorted { $0.direction == .send && $1.direction != .send }
    }

    /// Sends the reset and every packet of the plan, then waits for the acknowledgement.
    private func send(_ writer: SerialChannelWriter, acks: AsyncStream<Void>) async throws -> ThroughputFigures {
        try await writer.write(ThroughputBenchPacket.reset.framed ?? [])
        let start = ContinuousClock.now
        var chunk: [UInt8] = []
        chunk.reserveCapacity(Self.writeSize + plan.packetSize)
        for index in 0..<plan.packetCount {
            let elapsed = ContinuousClock.now - start
            let microseconds = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
            chunk += plan.packet(index, timestamp: UInt32(truncatingIfNeeded: microseconds)).framed ?? []
            if chunk.count >= Self.writeSize || index == plan.packetCount - 1 {
                try await writer.write(chunk)
                chunk.removeAll(keepingCapacity: true)
                progress.show(done: (index + 1) * plan.packetSize, total: plan.totalBytes)
            }
        }
        for await _ in acks { return ThroughputFigures(bytes: plan.totalBytes, seconds: Self.seconds(since: start)) }
        throw BluetoothError.channelClosed(.remoteRequest)
    }

    /// Reads the channel: acknowledgements for the sender; resets and sequence packets for the
    /// receiver, which acknowledges the last packet and reports the transfer.
    private static func read(
        _ channel: L2CAPChannel, writer: SerialChannelWriter, acks: AsyncStream<Void>.Continuation,
        transfers: AsyncStream<ThroughputFigures>.Continuation
    ) async {
        defer {
            acks.finish()
            transfers.finish()
        }
        var reassembler = ThroughputBenchReassembler()
        var start: ContinuousClock.Instant?
        var received = 0
        do {
            for try await sdu in channel.incoming {
                for bytes in reassembler.append(sdu) {
                    switch ThroughputBenchPacket(bytes: bytes) {
                    case .reset?:
                        (start, received) = (.now, 0)
                    case let .sequence(number, flags, _, _)? where flags & ThroughputBenchPacket.lastFlag != 0:
                        received += bytes.count + 2
                        let figures = ThroughputFigures(bytes: received, seconds: seconds(since: start ?? .now))
                        try await writer.write(ThroughputBenchPacket.ack(number: number, flags: flags).framed ?? [])
                        transfers.yield(figures)
                        (start, received) = (nil, 0)
                    case .sequence?:
                        if start == nil { start = .now }
                        received += bytes.count + 2
                    case .ack?:
                        acks.yield()
                    case nil:
                        continue  // not the protocol's: skipped, as Bumble skips it
                    }
                }
            }
        } catch {}
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// Writes to a channel one caller at a time, so the packets of concurrent writers (the sender's
/// data, the receiver's acknowledgement) never interleave inside each other on the stream.
actor SerialChannelWriter {
    private let channel: L2CAPChannel
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ channel: L2CAPChannel) { self.channel = channel }

    func write(_ bytes: [UInt8]) async throws {
        if busy { await withCheckedContinuation { waiting.append($0) } }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        try await channel.write(bytes)
    }
}
