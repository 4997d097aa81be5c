#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A connected socket carrying H4-framed packets, read by a dedicated thread.
///
/// The reader thread waits in `poll` on the socket and on a wake-up pipe, so ``close()`` stops it
/// promptly even for socket families without `shutdown` (HCI sockets). The socket is closed
/// exactly once, by the reader thread on its way out, while holding the write lock, so a writer
/// can never write to a closed (and possibly reused) descriptor.
final class SocketConnection: @unchecked Sendable {
    // Safety of @unchecked Sendable: `descriptor`, `wakeWrite` and `isClosing` are only read or
    // written while holding `stateLock`; a send holds `writeLock` for its whole syscall loop and
    // re-checks `descriptor` under it; the reader thread closes the descriptors only while holding
    // both locks. `continuation` is itself Sendable. `packets` is immutable.
    private let stateLock = NSLock()
    private let writeLock = NSLock()
    private var descriptor: Int32
    private var wakeWrite: Int32
    private var isClosing = false
    private let wakeRead: Int32
    private let continuation: AsyncThrowingStream<HCIPacket, any Error>.Continuation
    let packets: AsyncThrowingStream<HCIPacket, any Error>
    /// For the reader thread's name.
    private let name: String

    /// Takes ownership of `descriptor` (closing it on failure) and starts the reader thread.
    init(descriptor: Int32, name: String) throws(HCITransportError) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let code = errno
            _ = systemClose(descriptor)
            throw .io(operation: "pipe", errno: code)
        }
        self.descriptor = descriptor
        self.wakeRead = pipeEnds[0]
        self.wakeWrite = pipeEnds[1]
        self.name = name
        (packets, continuation) = AsyncThrowingStream.makeStream(of: HCIPacket.self, throwing: (any Error).self)
        let thread = Thread { [self] in readLoop() }
        thread.name = "HaraldHCI reader \(name)"
        thread.start()
    }

    /// Writes the whole run of bytes as one unit (one packet never interleaves with another).
    func send(_ bytes: [UInt8]) throws(HCITransportError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        stateLock.lock()
        let fd = isClosing ? -1 : descriptor
        stateLock.unlock()
        guard fd >= 0 else { throw .closed }
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

    /// Stops the reader thread and closes the socket; safe to call any number of times.
    func close() {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard !isClosing else { return }
        isClosing = true
        if wakeWrite >= 0 {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private func readLoop() {
        stateLock.lock()
        let fd = descriptor
        stateLock.unlock()
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
                continuation.yield(packet)
            }
            if let error = parser.error {
                failure = error
                break loop
            }
        }
        stateLock.lock()
        let closedByUs = isClosing
        isClosing = true
        stateLock.unlock()
        if closedByUs { continuation.finish() } else { continuation.finish(throwing: failure ?? .closed) }
        writeLock.lock()
        stateLock.lock()
        _ = systemClose(descriptor)
        _ = systemClose(wakeWrite)
        _ = systemClose(wakeRead)
        descriptor = -1
        wakeWrite = -1
        stateLock.unlock()
        writeLock.unlock()
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
