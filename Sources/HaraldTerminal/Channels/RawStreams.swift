#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes in and out of file descriptors exactly as they are: no text mode, no encoding, no line
/// buffering (what `harald l2cap` copies between stdin/stdout and a channel). The calls block;
/// callers run them off Swift's cooperative threads.
public enum RawStream {
    /// What one read gave.
    public enum ReadResult: Hashable, Sendable {
        /// Up to the asked-for count of bytes, at least one.
        case bytes([UInt8])
        /// The input ended.
        case end
        /// The read failed with this `errno`.
        case failed(Int32)
    }

    /// Reads what is available from `descriptor`, up to `count` bytes (at least 1), waiting for
    /// at least one; retries when interrupted, and waits when the descriptor is non-blocking.
    public static func read(_ descriptor: Int32, upTo count: Int) -> ReadResult {
        var buffer = [UInt8](repeating: 0, count: max(1, count))
        while true {
            let got = buffer.withUnsafeMutableBytes { raw in system_read(descriptor, raw.baseAddress, raw.count) }
            if got > 0 { return .bytes(Array(buffer[0..<got])) }
            if got == 0 { return .end }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                wait(descriptor, for: Int16(POLLIN))
                continue
            }
            return .failed(error)
        }
    }

    /// Writes all of `bytes` to `descriptor`; nil once written, else the `errno` that stopped it
    /// (EPIPE when the reader went away: the caller ignores SIGPIPE to get it).
    @discardableResult
    public static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let wrote = bytes.withUnsafeBytes { raw in system_write(descriptor, raw.baseAddress! + offset, raw.count - offset) }
            if wrote > 0 {
                offset += wrote
                continue
            }
            let error = errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK {
                wait(descriptor, for: Int16(POLLOUT))
                continue
            }
            return error
        }
        return nil
    }

    private static func wait(_ descriptor: Int32, for events: Int16) {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        _ = poll(&entry, 1, -1)
    }
}

private func system_read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func system_write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

/// Whole numbers as the command line gives them: decimal, or hexadecimal after `0x` (`128`, `0x80`).
public enum NumberArgument {
    /// The value of `text`; nil when it is not a number in either form or does not fit.
    public static func value(of text: String) -> UInt64? {
        let trimmed = text.lowercased()
        if trimmed.hasPrefix("0x") {
            let digits = trimmed.dropFirst(2)
            guard !digits.isEmpty, digits.allSatisfy(\.isHexDigit) else { return nil }
            return UInt64(digits, radix: 16)
        }
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(trimmed)
    }
}
