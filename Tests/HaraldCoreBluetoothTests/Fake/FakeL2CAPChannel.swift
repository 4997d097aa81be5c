import Foundation
import HaraldCoreBluetooth

// Stand-ins for CBL2CAPChannel and its streams: in memory, between the backend and a test that
// plays the peer. They behave as CoreBluetooth's do where the backend depends on it: events go to
// the delegate on the run loop the stream is scheduled in; a read takes at most what the peer
// sent (what the peer sends beyond the reader's room stays in the stream, as CoreBluetooth's
// credits hold it); `endEncountered` comes once the peer closed and every byte was read; a write
// takes at most the room the output has, which the peer makes by reading.

final class FakePeer: CoreBluetoothPeer, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let identifier: UUID
    init(identifier: UUID) { self.identifier = identifier }
}

/// Delivers `event` to `stream`'s delegate on the run loop it is scheduled in.
private func post(_ event: Stream.Event, to stream: Stream, delegate: StreamDelegate?, on runLoop: RunLoop?) {
    guard let delegate, let runLoop else { return }
    nonisolated(unsafe) let target = (stream: stream, delegate: delegate)
    runLoop.add(
        Timer(fire: Date(), interval: 0, repeats: false) { _ in
            #if canImport(Darwin)
            target.delegate.stream?(target.stream, handle: event)
            #else
            target.delegate.stream(target.stream, handle: event)
            #endif
        }, forMode: .default)
}

/// The bytes the peer sends, as the backend reads them.
final class FakeInputStream: InputStream {
    // Mutable state is guarded by `lock`: the backend uses the stream on its channel thread, the
    // test plays the peer from its own task.
    private let lock = NSLock()
    private var pending: [UInt8] = []
    private var ended = false
    private var closed = false
    /// Strong until the stream is closed (then dropped): a weak reference's side table would stay
    /// allocated while an event timer holds the stream, and Foundation's timers on Linux never
    /// free what their block holds (scripts/sanitizers/lsan.supp).
    private var streamDelegate: StreamDelegate?
    private var runLoop: RunLoop?
    private var largestRead = 0

    init() { super.init(data: Data()) }

    override var delegate: StreamDelegate? {
        get { lock.withLock { streamDelegate } }
        set { lock.withLock { streamDelegate = newValue } }
    }
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) { lock.withLock { runLoop = aRunLoop } }
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) { lock.withLock { runLoop = nil } }
    override func open() { notify(pendingEvent()) }
    override func close() {
        lock.withLock {
            closed = true
            streamDelegate = nil
        }
    }
    override var hasBytesAvailable: Bool { lock.withLock { !pending.isEmpty } }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        let (count, end) = lock.withLock { () -> (Int, Bool) in
            largestRead = max(largestRead, len)
            let count = min(len, pending.count)
            for index in 0..<count { buffer[index] = pending[index] }
            pending.removeFirst(count)
            return (count, ended && pending.isEmpty)
        }
        if end && count > 0 { notify(.endEncountered) }
        return count
    }

    // MARK: Peer side

    /// Bytes the peer sent that the backend has not read.
    var unread: Int { lock.withLock { pending.count } }
    var isClosed: Bool { lock.withLock { closed } }

    func peerSends(_ bytes: [UInt8]) {
        lock.withLock { pending += bytes }
        notify(.hasBytesAvailable)
    }

    func peerCloses() {
        let end = lock.withLock { () -> Bool in
            ended = true
            return pending.isEmpty
        }
        if end { notify(.endEncountered) }
    }

    private func pendingEvent() -> Stream.Event? {
        lock.withLock { pending.isEmpty ? (ended ? .endEncountered : nil) : .hasBytesAvailable }
    }

    private func notify(_ event: Stream.Event?) {
        guard let event else { return }
        let (delegate, runLoop) = lock.withLock { (streamDelegate, self.runLoop) }
        post(event, to: self, delegate: delegate, on: runLoop)
    }
}

/// The bytes the backend sends, as the peer takes them.
final class FakeOutputStream: OutputStream {
    // Mutable state is guarded by `lock` (see FakeInputStream).
    private let lock = NSLock()
    private let capacity: Int
    private var written: [UInt8] = []
    private var closed = false
    /// Strong until the stream is closed (then dropped): a weak reference's side table would stay
    /// allocated while an event timer holds the stream, and Foundation's timers on Linux never
    /// free what their block holds (scripts/sanitizers/lsan.supp).
    private var streamDelegate: StreamDelegate?
    private var runLoop: RunLoop?
    /// When set, the peer sends every byte written straight back through this input (an echo).
    private var echo: FakeInputStream?

    init(capacity: Int) {
        self.capacity = capacity
        super.init(toMemory: ())
    }

    required init(toMemory: ()) {
        capacity = 512
        super.init(toMemory: ())
    }

    override var delegate: StreamDelegate? {
        get { lock.withLock { streamDelegate } }
        set { lock.withLock { streamDelegate = newValue } }
    }
    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) { lock.withLock { runLoop = aRunLoop } }
    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) { lock.withLock { runLoop = nil } }
    override func open() { notify(.hasSpaceAvailable) }
    override func close() {
        lock.withLock {
            closed = true
            streamDelegate = nil
        }
    }
    override var hasSpaceAvailable: Bool { lock.withLock { written.count < capacity } }

    override func write(_ buffer: UnsafePointer<UInt8>, maxLength len: Int) -> Int {
        lock.lock()
        if let echo {
            lock.unlock()
            echo.peerSends(Array(UnsafeBufferPointer(start: buffer, count: len)))
            return len
        }
        // Only what fits is copied: a writer may offer far more than the room there is.
        let count = min(len, capacity - written.count)
        written.append(contentsOf: UnsafeBufferPointer(start: buffer, count: count))
        lock.unlock()
        return count
    }

    /// The peer sends back everything written from now on, through `input`.
    func echoes(through input: FakeInputStream) { lock.withLock { echo = input } }

    // MARK: Peer side

    var isClosed: Bool { lock.withLock { closed } }
    /// Bytes written and not yet taken by the peer.
    var untaken: Int { lock.withLock { written.count } }

    /// What the backend wrote since the last call; makes room for more.
    func peerTakes() -> [UInt8] {
        let taken = lock.withLock {
            defer { written = [] }
            return written
        }
        notify(.hasSpaceAvailable)
        return taken
    }

    private func notify(_ event: Stream.Event) {
        let (delegate, runLoop) = lock.withLock { (streamDelegate, self.runLoop) }
        post(event, to: self, delegate: delegate, on: runLoop)
    }
}

/// Stands in for `CBL2CAPChannel`.
final class FakeL2CAPChannel: CoreBluetoothL2CAPChannel, @unchecked Sendable {
    // @unchecked Sendable: immutable; the streams guard their own state.
    let psm: UInt16
    let peer: FakePeer!
    let inputStream: InputStream!
    let outputStream: OutputStream!
    /// The streams as the peer sees them.
    let incoming: FakeInputStream
    let outgoing: FakeOutputStream

    init(psm: UInt16, peer: UUID = UUID(), outputCapacity: Int = 512) {
        self.psm = psm
        self.peer = FakePeer(identifier: peer)
        incoming = FakeInputStream()
        outgoing = FakeOutputStream(capacity: outputCapacity)
        inputStream = incoming
        outputStream = outgoing
    }

    /// Both streams were closed by the backend.
    var isClosed: Bool { incoming.isClosed && outgoing.isClosed }

    /// The peer sends every byte the backend writes straight back.
    func echoes() { outgoing.echoes(through: incoming) }
}
