#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HaraldCore

/// A connected socket carrying H4-framed packets, served by one thread of its own that reads the
/// socket and is also the serial executor of the host on top (``executor``).
///
/// The thread waits in `poll` on the socket and on a wake-up pipe. It runs the jobs enqueued on
/// ``executor`` and hands each packet it reads to ``packets``; so a packet whose host waits is
/// handled on the thread that read it, with no thread woken in between. ``close()`` stops the
/// reading promptly even for socket families without `shutdown` (HCI sockets); the thread goes on
/// running jobs until nothing can enqueue any more (this connection and its executor are gone).
/// The socket is closed exactly once, by the thread, while holding the write side, so a writer
/// can never write to a closed (and possibly reused) descriptor.
final class SocketConnection: Sendable {
    private let loop: SocketLoop
    /// Runs its jobs on the socket's thread, between reads (see ``TransportExecutor``).
    let executor: TransportExecutor
    /// A `TransportTaskExecutor` on the same thread, where task executors exist (held as an
    /// object so the type needs no availability).
    private let taskExecutorObject: (any AnyObject & Sendable)?

    /// The socket's thread as a task executor: nonisolated code of a task that prefers it runs
    /// on the thread that reads the socket (see ``TransportTaskExecutor``).
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var taskExecutor: (any TaskExecutor)? { taskExecutorObject as? any TaskExecutor }

    /// Packets read and not yet taken by the host, bounded: when it is full the thread stops
    /// reading and the controller is held back (see ``HCIPacketInbox``).
    var packets: HCIPacketInbox { loop.packets }

    /// Takes ownership of `descriptor` (closing it on failure) and starts the thread.
    init(descriptor: Int32, name: String, backlogCapacity: Int = HCIPacketInbox.defaultCapacity) throws(HCITransportError) {
        loop = try SocketLoop(descriptor: descriptor, capacity: backlogCapacity)
        executor = TransportExecutor(loop: loop)
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            taskExecutorObject = TransportTaskExecutor(loop: loop)
        } else {
            taskExecutorObject = nil
            loop.taskExecutorReleased()
        }
        let loop = self.loop
        let thread = Thread { loop.run() }
        thread.name = "HaraldHCI \(name)"
        thread.start()
    }

    /// True when called on the thread that reads the socket.
    var isReadingThread: Bool { loop.isCurrentThread }

    /// Writes the whole run of bytes as one unit (one packet never interleaves with another).
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        try loop.send(bytes)
    }

    /// Stops reading and closes the socket; safe to call any number of times. Jobs enqueued on
    /// ``executor`` still run.
    func close() {
        loop.requestClose()
    }

    deinit { loop.requestClose() }
}

/// A serial executor whose jobs run on a socket transport's thread, in the order they were
/// enqueued, between reads of the socket.
///
/// The HCI host runs on it (``HCIHost`` takes its transport's executor), so the packets the thread
/// reads resume the host's reader on the same thread. While it lives, the thread lives; when the
/// last reference to it goes, the thread ends after the jobs still queued.
final class TransportExecutor: SerialExecutor {
    private let loop: SocketLoop

    init(loop: SocketLoop) {
        self.loop = loop
        loop.executorCreated(self)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(UnownedJob(job), keeping: self)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        precondition(loop.isCurrentThread, "expected to run on the transport's thread")
    }

    deinit { loop.executorReleased() }
}

/// A task executor whose jobs run on a socket transport's thread, in the order they were enqueued
/// (with the serial executor's), between reads of the socket.
///
/// A task that prefers it (`withTaskExecutorPreference`) runs its nonisolated code there: a loop
/// over a subscription then takes each value on the thread that read it from the controller, with
/// no other thread woken. While it lives, the thread lives.
///
/// The thread runs this executor's jobs as the serial executor's too (`runSynchronously(isolatedTo:
/// taskExecutor:)`, while the serial executor lives): run as the task executor only, a job of a
/// preferring task that hopped onto an actor of the serial executor (the host, an inbox on the
/// thread) ran that actor's code without its isolation — a delivery landed inside a wait and
/// values came out of order (`TCPTransportTaskExecutorTests`). The serial executor's own jobs run
/// as the serial executor only: with one object in both roles and every job run as both (tried),
/// pairings and writes of the Bumble integration suite lost their connections; the likely cause is
/// that every task passing through the host then ran as if it preferred the thread, but it was not
/// pinned down.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class TransportTaskExecutor: TaskExecutor {
    private let loop: SocketLoop

    init(loop: SocketLoop) {
        self.loop = loop
        loop.taskExecutorCreated(UnownedTaskExecutor(ordinary: self))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(UnownedJob(job), keepingTaskExecutor: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    deinit { loop.taskExecutorReleased() }
}

/// What the transport's thread owns: the socket, the wake-up pipe, the jobs waiting to run and
/// the packets waiting for the host. Everything the thread alone touches is confined to ``run()``;
/// everything other threads touch is behind `control` or `writeSide`.
final class SocketLoop: Sendable {
    /// The socket for writers, -1 once the thread has closed it. A send holds this lock for its
    /// whole syscall loop, so one packet never interleaves with another and the thread cannot
    /// close the socket under a write. That write can block, but only for as long as the kernel's
    /// send buffer is full (bounded by SO_SNDTIMEO on TCP).
    private let writeSide: Locked<Int32>
    /// Jobs and requests from other threads; `wakeWrite` wakes the thread when it sleeps in poll.
    private let control: Locked<Control>
    private let readDescriptor: Int32
    private let wakeRead: Int32
    let packets: HCIPacketInbox

    /// A job and the executor it was enqueued on.
    struct QueuedJob {
        let job: UnownedJob
        /// Enqueued on the task executor (else on the serial executor).
        let onTaskExecutor: Bool
    }

    private struct Control {
        var jobs: [QueuedJob] = []
        /// True while the thread is (about to be) in poll with no job queued: an enqueue must
        /// wake it.
        var sleeping = false
        var closeRequested = false
        var executorGone = false
        /// The serial executor, not kept alive by the thread between batches (it ends the thread
        /// when it goes).
        weak var executor: TransportExecutor?
        /// The executor, held while jobs are queued for it, so it cannot go away under them.
        var executorWhileJobsWait: TransportExecutor?
        /// The task executor on the same thread (`TransportTaskExecutor`), its end, and a hold
        /// on it while its jobs wait (as an object: the type needs macOS 15).
        var taskExecutorGone = false
        var taskExecutor: UnownedTaskExecutor?
        var taskExecutorWhileJobsWait: (any AnyObject & Sendable)?
        var wakeWrite: Int32
        /// The thread, once it runs (for `checkIsolated`).
        var thread: pthread_t?
    }

    init(descriptor: Int32, capacity: Int) throws(HCITransportError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            throw .io(operation: "pipe", errno: code)
        }
        for end in pipeEnds { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        writeSide = Locked(descriptor)
        readDescriptor = descriptor
        wakeRead = pipeEnds[0]
        let control = Locked(Control(wakeWrite: pipeEnds[1]))
        self.control = control
        // The host took a packet after the thread had to keep some back: read on.
        packets = HCIPacketInbox(capacity: capacity) { SocketLoop.wake(control) }
    }

    func executorCreated(_ executor: TransportExecutor) {
        control.withLock { $0.executor = executor }
    }

    var isCurrentThread: Bool {
        control.withLock { state in state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    func taskExecutorCreated(_ executor: UnownedTaskExecutor) {
        control.withLock { $0.taskExecutor = executor }
    }

    func taskExecutorReleased() {
        control.withLock { $0.taskExecutorGone = true }
        Self.wake(control, always: true)
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func enqueue(_ job: UnownedJob, keepingTaskExecutor executor: TransportTaskExecutor) {
        let wakeWrite = control.withLock { state -> Int32 in
            state.jobs.append(QueuedJob(job: job, onTaskExecutor: true))
            if state.taskExecutorWhileJobsWait == nil { state.taskExecutorWhileJobsWait = executor }
            guard state.sleeping else { return -1 }
            state.sleeping = false
            return state.wakeWrite
        }
        if wakeWrite >= 0 { Self.poke(wakeWrite) }
    }

    func enqueue(_ job: UnownedJob, keeping executor: TransportExecutor) {
        let wakeWrite = control.withLock { state -> Int32 in
            state.jobs.append(QueuedJob(job: job, onTaskExecutor: false))
            if state.executorWhileJobsWait == nil { state.executorWhileJobsWait = executor }
            guard state.sleeping else { return -1 }
            state.sleeping = false
            return state.wakeWrite
        }
        if wakeWrite >= 0 { Self.poke(wakeWrite) }
    }

    func requestClose() {
        control.withLock { $0.closeRequested = true }
        Self.wake(control, always: true)
    }

    func executorReleased() {
        control.withLock { $0.executorGone = true }
        Self.wake(control, always: true)
    }

    /// Wakes the thread if it sleeps (or, with `always`, in any case: it then sees a new request
    /// on its next turn).
    private static func wake(_ control: Locked<Control>, always: Bool = false) {
        let wakeWrite = control.withLock { state -> Int32 in
            guard always || state.sleeping else { return -1 }
            state.sleeping = false
            return state.wakeWrite
        }
        if wakeWrite >= 0 { poke(wakeWrite) }
    }

    /// One byte into the wake-up pipe; a full pipe already wakes the thread, so a failed write is
    /// harmless.
    private static func poke(_ wakeWrite: Int32) {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Writes the whole run of bytes as one unit.
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        try writeSide.withLock { (fd: inout Int32) throws(HCITransportError) in
            guard fd >= 0, !control.withLock({ $0.closeRequested }) else { throw .closed }
            var written = 0
            while written < bytes.count {
                let result = bytes.withUnsafeBytes { raw in
                    systemSend(fd, raw.baseAddress! + written, raw.count - written)
                }
                if result < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    if code == EPIPE || code == ECONNRESET || code == ENOTCONN { throw .closed }
                    throw .io(operation: "send", errno: code)
                }
                written += result
            }
        }
    }

    /// The thread's body: runs jobs, reads the socket, and hands packets over, until the socket
    /// is closed and nothing can enqueue jobs any more.
    func run() {
        control.withLock { $0.thread = pthread_self() }
        var parser = H4Parser()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var drain = [UInt8](repeating: 0, count: 64)
        // Packets read but refused by a full inbox, handed over once the host took some; while
        // any wait, the socket is not read (so at most one read's worth waits here).
        var heldBack: [HCIPacket] = []
        var heldBackHead = 0
        var socketOpen = true
        var batch: [QueuedJob] = []
        while true {
            // One batch of jobs per turn, so jobs that enqueue jobs cannot starve the socket.
            // The serial executor is held for the whole batch (when it still lives): its own jobs
            // run on it, and the task executor's jobs run isolated to it, so no job may outlive it.
            var (taskExecutor, kept, keptTask, stop) = control.withLock { state in
                swap(&batch, &state.jobs)
                defer {
                    state.executorWhileJobsWait = nil
                    state.taskExecutorWhileJobsWait = nil
                }
                return (
                    state.taskExecutor, state.executorWhileJobsWait ?? (state.executorGone ? nil : state.executor),
                    state.taskExecutorWhileJobsWait, state.executorGone && state.taskExecutorGone
                )
            }
            let executor = kept?.asUnownedSerialExecutor()
            for queued in batch {
                if queued.onTaskExecutor {
                    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *), let taskExecutor {
                        if let executor {
                            // As the thread's serial executor too: see TransportTaskExecutor.
                            queued.job.runSynchronously(isolatedTo: executor, taskExecutor: taskExecutor)
                        } else {
                            queued.job.runSynchronously(on: taskExecutor)
                        }
                    }
                } else if let executor {
                    queued.job.runSynchronously(on: executor)
                }
            }
            batch.removeAll(keepingCapacity: true)
            // The batch's own references to the executors go; if one was the last, its deinit
            // has just marked it gone.
            if kept != nil || keptTask != nil {
                kept = nil
                keptTask = nil
                stop = control.withLock { $0.executorGone && $0.taskExecutorGone && $0.jobs.isEmpty }
            }
            // A close ends the packets first: nothing held back is handed over after it.
            let closeRequested = control.withLock { $0.closeRequested }
            if socketOpen, closeRequested {
                finishReading(nil)
                socketOpen = false
            }
            while heldBackHead < heldBack.count, packets.yield(heldBack[heldBackHead]) { heldBackHead += 1 }
            if heldBackHead == heldBack.count || packets.queue.isFinished {
                heldBack.removeAll(keepingCapacity: true)
                heldBackHead = 0
            }
            if stop, !socketOpen { break }
            if stop, socketOpen {
                // Nothing can enqueue jobs and nobody holds the connection: stop reading too.
                finishReading(nil)
                socketOpen = false
                break
            }
            let readSocket = socketOpen && heldBack.isEmpty
            var hasJobs = control.withLock { state -> Bool in
                if state.jobs.isEmpty, !state.closeRequested || !socketOpen, !(state.executorGone && state.taskExecutorGone) {
                    state.sleeping = true
                    return false
                }
                return true
            }
            // Packets wait for room: if the host took one after the last attempt above but before
            // `sleeping` was set, its room call found the thread awake and poked nobody; look
            // again now that it would be poked.
            if !hasJobs, !heldBack.isEmpty, packets.count < packets.capacity { hasJobs = true }
            var fds = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: readSocket ? readDescriptor : -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, hasJobs ? 0 : -1)
            control.withLock { $0.sleeping = false }
            if ready < 0 {
                if errno == EINTR { continue }
                if socketOpen {
                    finishReading(.io(operation: "poll", errno: errno))
                    socketOpen = false
                }
                continue
            }
            if fds[0].revents != 0 {
                while drain.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
            }
            guard readSocket, fds[1].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { raw in recv(readDescriptor, raw.baseAddress, raw.count, 0) }
            if count < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                finishReading(code == ECONNRESET ? .closed : .io(operation: "recv", errno: code))
                socketOpen = false
                continue
            }
            if count == 0 {
                finishReading(.closed)  // the controller end went away
                socketOpen = false
                continue
            }
            for packet in parser.feed(buffer[0..<count]) where !heldBack.isEmpty || !packets.yield(packet) {
                heldBack.append(packet)
            }
            if let error = parser.error {
                finishReading(error)
                socketOpen = false
            }
        }
        let wakeWrite = control.withLock { state -> Int32 in
            defer { state.wakeWrite = -1 }
            return state.wakeWrite
        }
        _ = systemClose(wakeWrite)
        _ = systemClose(wakeRead)
    }

    /// Ends the packets (normally when this side closed, else with `failure`) and closes the
    /// socket once no send is in progress.
    private func finishReading(_ failure: HCITransportError?) {
        let closedByUs = control.withLock { state in
            defer { state.closeRequested = true }
            return state.closeRequested
        }
        if closedByUs { packets.finish() } else { packets.finish(throwing: failure ?? .closed) }
        // Waits for a send in progress, then closes the socket before any later send can see it.
        writeSide.withLock { fd in
            _ = systemClose(fd)
            fd = -1
        }
    }
}

/// `send` without SIGPIPE (Linux: MSG_NOSIGNAL; Darwin sockets get SO_NOSIGPIPE when opened).
func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    return send(fd, bytes, count, 0)
    #else
    return send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #endif
}

/// `close`, named apart from the methods called `close` in this module.
@discardableResult
func systemClose(_ fd: Int32) -> Int32 {
    guard fd >= 0 else { return 0 }
    #if canImport(Darwin)
    return Darwin.close(fd)
    #elseif canImport(Musl)
    return Musl.close(fd)
    #else
    return Glibc.close(fd)
    #endif
}
