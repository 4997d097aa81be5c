import Foundation
import Harald
import HaraldCore

/// One open CoreBluetooth L2CAP channel, over its input and output streams: the backend's end of
/// an `L2CAPChannel` on either role.
///
/// - **One thread.** The streams are scheduled on, and only ever touched from, a
///   ``ChannelThread`` of the channel's own; callers hand work to it and wait on continuations.
/// - **Reading on demand.** Bytes are read from the input stream only while the buffer of received
///   bytes has room (`receiveBuffer` bytes, from `L2CAPChannelOptions/receiveBuffer`). A reader
///   that stops leaves the rest in the stream, so CoreBluetooth stops giving the peer credits and
///   the peer waits: memory stays bounded. Each element ``receive()`` returns is what one read
///   returned (the streams hide SDU boundaries).
/// - **Sending** writes every byte, waiting for the output stream's room, and returns once the
///   stream took the last one; sends go out one after another in call order.
/// - **Closing.** The end of either stream (the peer closed the channel) closes it with
///   `L2CAPChannelCloseReason/remoteRequest`, a stream error or the link's loss with
///   `L2CAPChannelCloseReason/linkLost`. Then waiting sends fail with
///   `BluetoothError/channelClosed(_:)`, and ``receive()`` returns what was buffered, then nil.
///   Closing closes both streams and lets go of the CoreBluetooth channel object.
package final class StreamChannel: NSObject, L2CAPChannelBackend, StreamDelegate, @unchecked Sendable {
    // @unchecked Sendable: `input`, `output` and `owner` are used only on `thread` (and set in
    // `init`); everything else that changes is behind `state`.
    package let psm: L2CAPPSM
    /// CoreBluetooth does not say the channel's MTU.
    package var mtu: Int? { nil }
    /// CoreBluetooth does not say the peer's MTU; a send may be of any length.
    package var peerMTU: Int? { nil }
    /// The most received bytes held for the reader.
    package let receiveBuffer: Int

    private let input: InputStream
    private let output: OutputStream
    /// The CoreBluetooth channel object, kept until the streams are closed.
    private var owner: AnyObject?
    private let thread: ChannelThread
    private let state = Locked(ChannelState())

    /// The most bytes one read asks the input stream for.
    static var readChunk: Int { 16 * 1024 }

    /// What a receive finds.
    enum ReceiveOutcome {
        case value([UInt8]?)
        case failure(BluetoothError)
        case waiting
    }

    struct PendingSend {
        let id: UInt64
        let bytes: [UInt8]
        var offset = 0
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct ChannelState {
        /// Received bytes not yet taken by the reader, one element per read.
        var chunks: [[UInt8]] = []
        var head = 0
        var buffered = 0
        /// The most bytes ever buffered at once.
        var highWater = 0
        var reader: CheckedContinuation<[UInt8]?, any Error>?
        /// The input stream said it has bytes that were not read yet.
        var readable = false
        var sends: [PendingSend] = []
        var nextID: UInt64 = 0
        var closeReason: L2CAPChannelCloseReason?
        /// Told once when the channel closes (the backend forgets the channel).
        var onClose: (@Sendable () -> Void)?

        var room: Int { receiveBufferSize - buffered }
        var receiveBufferSize = 1

        mutating func take() -> [UInt8]? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            head += 1
            buffered -= chunk.count
            if head == chunks.count || head > 64 {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }

    /// A channel over `input` and `output`, holding `owner` (the CoreBluetooth channel) until it
    /// closes. The streams are opened on the channel's thread at once.
    init(psm: L2CAPPSM, input: InputStream, output: OutputStream, owner: AnyObject, receiveBuffer: Int) {
        self.psm = psm
        self.input = input
        self.output = output
        self.owner = owner
        self.receiveBuffer = max(1, receiveBuffer)
        thread = ChannelThread(name: "Harald.L2CAP.\(psm.rawValue)")
        super.init()
        state.withLock { $0.receiveBufferSize = self.receiveBuffer }
        thread.run { [self] in openStreams() }
    }

    /// Runs `action` once the channel closes (at once if it is closed).
    func whenClosed(_ action: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state -> Bool in
            if state.closeReason != nil { return true }
            state.onClose = action
            return false
        }
        if closed { action() }
    }

    // MARK: Diagnostics

    /// Bytes received and not yet taken by the reader.
    package var bufferedByteCount: Int { state.withLock { $0.buffered } }
    /// The most bytes ever held for the reader at once (never above ``receiveBuffer``).
    package var bufferedHighWater: Int { state.withLock { $0.highWater } }
    /// Sends and a receive waiting: 0 when nothing is in flight.
    package var pendingCallCount: Int { state.withLock { $0.sends.count + ($0.reader == nil ? 0 : 1) } }

    // MARK: L2CAPChannelBackend

    package func send(_ sdu: [UInt8]) async throws(BluetoothError) {
        if let reason = state.withLock({ $0.closeReason }) { throw .channelClosed(reason) }
        if sdu.isEmpty { return }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let refusal = state.withLock { state -> BluetoothError? in
                        if let reason = state.closeReason { return .channelClosed(reason) }
                        if Task.isCancelled { return .cancelled }
                        state.sends.append(PendingSend(id: id, bytes: sdu, continuation: continuation))
                        return nil
                    }
                    if let refusal { return continuation.resume(throwing: refusal) }
                    thread.run { [self] in pumpOutput() }
                }
            } onCancel: {
                // A send cancelled after part of it was written leaves that part sent.
                let cancelled = state.withLock { state -> PendingSend? in
                    guard let index = state.sends.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.sends.remove(at: index)
                }
                cancelled?.continuation.resume(throwing: BluetoothError.cancelled)
            }
        } catch {
            throw error as? BluetoothError ?? .backend("\(error)")
        }
    }

    package func receive() async throws(BluetoothError) -> [UInt8]? {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                    let (outcome, readMore) = state.withLock { state -> (ReceiveOutcome, Bool) in
                        if let chunk = state.take() { return (.value(chunk), state.readable) }
                        if state.closeReason != nil { return (.value(nil), false) }
                        if state.reader != nil { return (.failure(.misuse("an L2CAP channel has one reader at a time")), false) }
                        if Task.isCancelled { return (.failure(.cancelled), false) }
                        state.reader = continuation
                        return (.waiting, state.readable)
                    }
                    if readMore { thread.run { [self] in pumpInput() } }
                    switch outcome {
                    case .value(let chunk): continuation.resume(returning: chunk)
                    case .failure(let error): continuation.resume(throwing: error)
                    case .waiting: break
                    }
                }
            } onCancel: {
                let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
                    defer { state.reader = nil }
                    return state.reader
                }
                reader?.resume(throwing: BluetoothError.cancelled)
            }
        } catch {
            throw error as? BluetoothError ?? .backend("\(error)")
        }
    }

    package func closeReason() async -> L2CAPChannelCloseReason? { state.withLock { $0.closeReason } }

    /// Closes both streams; returns once they are closed.
    package func close() async {
        shut(.localRequest)
        await thread.runAndWait {}
    }

    /// The link went down: the channel closes with `L2CAPChannelCloseReason/linkLost`.
    func linkLost() { shut(.linkLost) }

    // MARK: Closing

    /// Marks the channel closed for `reason` (the first reason wins), ends what waits, and has
    /// the thread close the streams.
    private func shut(_ reason: L2CAPChannelCloseReason) {
        let ended = state.withLock { state -> (reader: CheckedContinuation<[UInt8]?, any Error>?, sends: [PendingSend], onClose: (@Sendable () -> Void)?)? in
            guard state.closeReason == nil else { return nil }
            state.closeReason = reason
            defer {
                state.reader = nil
                state.sends = []
                state.onClose = nil
            }
            return (state.reader, state.sends, state.onClose)
        }
        guard let ended else { return }
        // A waiting reader means nothing was buffered: the channel's data has all been read.
        ended.reader?.resume(returning: nil)
        for send in ended.sends { send.continuation.resume(throwing: BluetoothError.channelClosed(reason)) }
        ended.onClose?()
        thread.run { [self] in closeStreams() }
    }

    // MARK: On the channel's thread

    private func openStreams() {
        for stream in [input, output] as [Stream] {
            stream.delegate = self
            stream.schedule(in: .current, forMode: .default)
            stream.open()
        }
        let readable = input.hasBytesAvailable
        state.withLock { $0.readable = $0.readable || readable }
        pumpInput()
        pumpOutput()
    }

    private func closeStreams() {
        for stream in [input, output] as [Stream] {
            stream.delegate = nil
            stream.remove(from: .current, forMode: .default)
            stream.close()
        }
        owner = nil
        thread.stopOnThread()
    }

    package func stream(_ stream: Stream, handle event: Stream.Event) {
        if state.withLock({ $0.closeReason }) != nil { return }
        switch event {
        case .hasBytesAvailable:
            state.withLock { $0.readable = true }
            pumpInput()
        case .hasSpaceAvailable:
            pumpOutput()
        case .endEncountered:
            shut(.remoteRequest)
        case .errorOccurred:
            shut(.linkLost)
        default:
            break
        }
    }

    /// Reads while the input stream has bytes and the buffer has room, handing a waiting reader
    /// the first read.
    private func pumpInput() {
        while true {
            let room = state.withLock { state -> Int in
                guard state.closeReason == nil, state.readable else { return 0 }
                return state.room
            }
            guard room > 0 else { return }
            // An event can be stale: read only what the stream says it has (its end comes as an event).
            guard input.hasBytesAvailable else {
                state.withLock { $0.readable = false }
                return
            }
            var bytes = [UInt8](repeating: 0, count: min(room, Self.readChunk))
            let count = bytes.withUnsafeMutableBufferPointer { input.read($0.baseAddress!, maxLength: $0.count) }
            guard count > 0 else { return shut(count == 0 ? .remoteRequest : .linkLost) }
            bytes.removeLast(bytes.count - count)
            let more = input.hasBytesAvailable
            let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
                state.readable = more
                if let reader = state.reader {
                    state.reader = nil
                    return reader
                }
                state.chunks.append(bytes)
                state.buffered += count
                state.highWater = max(state.highWater, state.buffered)
                return nil
            }
            reader?.resume(returning: bytes)
        }
    }

    /// Writes the oldest send's bytes while the output stream has room, resuming each send once
    /// the stream took all of it.
    private func pumpOutput() {
        while true {
            let next = state.withLock { state -> (id: UInt64, bytes: ArraySlice<UInt8>)? in
                guard state.closeReason == nil, let send = state.sends.first else { return nil }
                return (send.id, send.bytes[send.offset...])
            }
            guard let next, output.hasSpaceAvailable else { return }
            let count = next.bytes.withUnsafeBufferPointer { output.write($0.baseAddress!, maxLength: $0.count) }
            guard count > 0 else { return shut(count == 0 ? .remoteRequest : .linkLost) }
            let done = state.withLock { state -> PendingSend? in
                guard let index = state.sends.firstIndex(where: { $0.id == next.id }) else { return nil }
                state.sends[index].offset += count
                return state.sends[index].offset == state.sends[index].bytes.count ? state.sends.remove(at: index) : nil
            }
            done?.continuation.resume()
        }
    }
}
