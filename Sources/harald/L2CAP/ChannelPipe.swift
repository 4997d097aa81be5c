import Dispatch
import Harald
import HaraldCore
import HaraldTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's stdin as raw bytes, read on a thread of its own (a blocking read must not hold
/// one of Swift's few cooperative threads): one chunk per call, so reading goes no faster than
/// the channel takes the chunks.
enum StandardInput {
    private static let queue = DispatchQueue(label: "harald.stdin")
    /// The most one chunk carries.
    static let chunkSize = 64 * 1024

    /// The next chunk, as read; nil once stdin has ended (or cannot be read).
    static func next() async -> [UInt8]? {
        await withCheckedContinuation { continuation in
            queue.async {
                if case let .bytes(chunk) = RawStream.read(STDIN_FILENO, upTo: chunkSize) {
                    continuation.resume(returning: chunk)
                } else {
                    continuation.resume(returning: nil)
                }
            }
        }
    }
}

/// The process's stdout as raw bytes, written on a thread of its own, in order.
enum StandardOutput {
    private static let queue = DispatchQueue(label: "harald.stdout")

    /// Writes `bytes` whole; false when stdout is gone (its reader closed it).
    static func write(_ bytes: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: RawStream.write(STDOUT_FILENO, bytes) == nil) }
        }
    }

    /// A broken pipe is reported to the writer (EPIPE) instead of killing the process.
    static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}

/// When the input ended and when the peer last sent data, for the linger rule.
final class PipeMarks: Sendable {
    private let marks = Locked<(inputEnded: ContinuousClock.Instant?, lastPeerData: ContinuousClock.Instant?)>((nil, nil))

    func inputEnded() { marks.withLock { $0.inputEnded = .now } }
    func peerSentData() { marks.withLock { $0.lastPeerData = .now } }

    func deadline(linger: Duration) -> ContinuousClock.Instant? {
        marks.withLock { StreamLinger.deadline(inputEnded: $0.inputEnded, lastPeerData: $0.lastPeerData, linger: linger) }
    }
}

/// netcat over a channel: stdin to the channel, the channel to stdout, byte for byte.
enum ChannelPipe {
    /// Copies both ways until stdin has ended and the peer has been quiet for `linger`, or the
    /// channel closes; throws when the link is lost. Closes the channel before returning.
    static func connect(_ channel: L2CAPChannel, linger: Duration) async throws {
        let marks = PipeMarks()
        let (inputEnd, endingInput) = AsyncStream.makeStream(of: Void.self)
        // Not a child task: a read of stdin cannot be cancelled, and the command must not wait for it.
        let input = Task {
            while let chunk = await StandardInput.next() {
                do { try await channel.write(chunk) } catch { return }  // closed: the output side says how
            }
            marks.inputEnded()
            endingInput.finish()
        }
        defer { input.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await copyToStandardOutput(channel, marks: marks) }
            group.addTask {
                for await _ in inputEnd {}
                while let deadline = marks.deadline(linger: linger), ContinuousClock.now < deadline {
                    try await Task.sleep(until: deadline, clock: .continuous)
                }
            }
            do {
                try await group.next()
            } catch {
                await channel.close()
                group.cancelAll()
                throw error
            }
            // Closing ends a receive the loop is waiting in; then nothing is left to wait for.
            await channel.close()
            group.cancelAll()
        }
    }

    /// Writes every SDU to stdout as it arrives, until the channel closes (or stdout goes away).
    /// Throws when the channel ended because the link was lost or the peer broke its rules.
    static func copyToStandardOutput(_ channel: L2CAPChannel, marks: PipeMarks? = nil) async throws {
        for try await sdu in channel.incoming {
            marks?.peerSentData()
            guard await StandardOutput.write(sdu) else { return }
        }
        switch await channel.closeReason() {
        case .linkLost?: throw BluetoothError.channelClosed(.linkLost)
        case let .protocolViolation(detail)?: throw BluetoothError.channelClosed(.protocolViolation(detail))
        default: return
        }
    }

    /// Serves `server` one channel at a time until cancelled: stdin to the open channel (a chunk
    /// its channel could not take goes to the next one), each channel to stdout. A channel opened
    /// while another is open is closed at once.
    static func listen(_ server: L2CAPChannelServer, report: @escaping @Sendable (String) -> Void) async {
        let slot = ChannelSlot()
        let input = Task {
            while let chunk = await StandardInput.next() {
                while !Task.isCancelled {
                    let channel = await slot.channel()
                    do {
                        try await channel.write(chunk)
                        break
                    } catch {
                        await slot.clear(channel)
                    }
                }
            }
        }
        defer { input.cancel() }
        for await channel in server.channels {
            guard await slot.take(channel) else {
                report("closed a second channel from \(channel.central?.rawValue ?? "a central"): one at a time")
                await channel.close()
                continue
            }
            report("channel open from \(channel.central?.rawValue ?? "a central") (peer MTU \(channel.peerMTU.map(String.init) ?? "?"))")
            Task {
                do { try await copyToStandardOutput(channel) } catch { report("channel ended: \(RadioSession.message(for: error))") }
                await slot.clear(channel)
                report("channel closed (\(await channel.closeReason()?.description ?? "closed"))")
            }
        }
    }
}

/// The one channel `harald l2cap listen` copies to, and the input waiting for it.
actor ChannelSlot {
    private var current: L2CAPChannel?
    private var waiting: [CheckedContinuation<L2CAPChannel, Never>] = []

    /// Makes `channel` the current one; false when another is.
    func take(_ channel: L2CAPChannel) -> Bool {
        guard current == nil else { return false }
        current = channel
        for waiter in waiting { waiter.resume(returning: channel) }
        waiting.removeAll()
        return true
    }

    /// Forgets `channel` if it is the current one.
    func clear(_ channel: L2CAPChannel) {
        if current === channel { current = nil }
    }

    /// The current channel, waiting for one.
    func channel() async -> L2CAPChannel {
        if let current { return current }
        return await withCheckedContinuation { waiting.append($0) }
    }
}
