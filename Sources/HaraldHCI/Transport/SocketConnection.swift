#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HaraldCore

/// A connected socket carrying H4-framed packets, read by a dedicated thread.
///
/// The reader thread waits in `poll` on the socket and on a wake-up pipe, so ``close()`` stops it
/// promptly even for socket families without `shutdown` (HCI sockets). The socket is closed
/// exactly once, by the reader thread on its way out, while holding the write side, so a writer
/// can never write to a closed (and possibly reused) descriptor.
final class SocketConnection: Sendable {
    /// What writers use: the socket, -1 once the reader thread has closed it. A send holds this
    /// lock for its whole syscall loop, so one packet never interleaves with another and the
    /// reader cannot close the socket under a write. That write can block, but only for as long
    /// as the kernel's send buffer is full (bounded by SO_SNDTIMEO on TCP); nothing else waits
    /// for this lock except other writers and the reader's final close.
    private let writeSide: Locked<Int32>
    /// Set by ``close()`` (or by the reader when the link fails); `wakeWrite` is the pipe end
    /// that wakes the reader, -1 once the reader closed it. Never held together with
    /// `writeSide` except inside it (lock order: `writeSide`, then `closing`).
    private let closing: Locked<(isClosing: Bool, wakeWrite: Int32)>
    /// The socket and the pipe end the reader thread polls; only the reader thread uses them.
    private let readDescriptor: Int32
    private let wakeRead: Int32
    private let continuation: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    let packets: AsyncThrowingStream<HCIPacket, any Error>
    /// Packets read and not yet taken by the host, bounded: when it is full the reader thread
    /// stops reading and the controller is held back (see ``PacketBacklog``).
    let backlog: PacketBacklog

    /// How many packets may wait for the host by default: far more than a controller sends in a
    /// burst (a scan's reports, a connection event's worth of notifications), few enough to
    /// bound the memory (about 1 MiB of 251-byte ACL packets).
    static let defaultBacklogCapacity = 4096

    /// Takes ownership of `descriptor` (closing it on failure) and starts the reader thread.
    init(descriptor: Int32, name: String, backlogCapacity: Int = SocketConnection.defaultBacklogCapacity) throws(HCITransportError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            throw .io(operation: "pipe", errno: code)
        }
        writeSide = Locked(descriptor)
        readDescriptor = descriptor
        wakeRead = pipeEnds[0]
        closing = Locked((isClosing: false, wakeWrite: pipeEnds[1]))
        backlog = PacketBacklog(capacity: backlogCapacity)
        (packets, continuation) = BackloggedStream.make(backlog: backlog)
        let thread = Thread { [self] in readLoop() }
        thread.name = "HaraldHCI reader \(name)"
        thread.start()
    }

    /// Writes the whole run of bytes as one unit (one packet never interleaves with another).
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        try writeSide.withLock { (fd: inout Int32) throws(HCITransportError) in
            guard fd >= 0, !closing.withLock({ $0.isClosing }) else { throw .closed }
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

    /// Stops the reader thread and closes the socket; safe to call any number of times.
    func close() {
        closing.withLock { state in
            guard !state.isClosing else { return }
            state.isClosing = true
            if state.wakeWrite >= 0 {
                var byte: UInt8 = 1
                _ = write(state.wakeWrite, &byte, 1)
            }
        }
        backlog.abandon()  // a reader waiting for room stops waiting
    }

    private func readLoop() {
        let fd = readDescriptor
        var parser = H4Parser()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var failure: HCITransportError?
        loop: while true {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                failure = .io(operation: "poll", errno: errno)
                break
            }
            if fds[1].revents != 0 { break }  // close() asked us to stop
            if fds[0].revents == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
            if count < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                failure = code == ECONNRESET ? .closed : .io(operation: "recv", errno: code)
                break
            }
            if count == 0 {
                failure = .closed  // the controller end went away
                break
            }
            for packet in parser.feed(buffer[0..<count]) {
                guard backlog.waitForRoom() else { break loop }  // closing, or nobody reads any more
                continuation.yield(packet)
            }
            if let error = parser.error {
                failure = error
                break loop
            }
        }
        let closedByUs = closing.withLock { state in
            defer { state.isClosing = true }
            return state.isClosing
        }
        if closedByUs { continuation.finish() } else { continuation.finish(throwing: failure ?? .closed) }
        // Waits for a send in progress, then closes the socket before any later send can see it.
        writeSide.withLock { fd in
            _ = systemClose(fd)
            fd = -1
        }
        closing.withLock { state in
            _ = systemClose(state.wakeWrite)
            state.wakeWrite = -1
        }
        _ = systemClose(wakeRead)
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
