import Foundation
import HaraldCore

/// Writes a btsnoop capture (datalink 1002, HCI UART/H4) of HCI packets, readable by Wireshark
/// and tshark.
///
/// Layout, all big-endian: a 16-byte file header (`btsnoop\0`, version 1, datalink 1002), then per
/// packet a 24-byte record header (original length, included length, flags, cumulative drops,
/// timestamp in microseconds since 0000-01-01 00:00 UTC) and the packet with its H4 indicator.
/// Flags: bit 0 set = received (controller → host), bit 1 set = command or event.
public final class BTSnoopWriter: Sendable {
    /// Where records go, and whether a write has failed. The sink is called with the lock held,
    /// so records from the host's reader and its senders never interleave in the file.
    private struct Output {
        var sink: (@Sendable ([UInt8]) throws -> Void)?
        var failed = false
    }

    private let output: Locked<Output>
    private let clock: @Sendable () -> Int64

    /// Direction of a recorded packet.
    public enum Direction: Sendable {
        /// A command or outgoing ACL packet.
        case hostToController
        /// An event or incoming ACL packet.
        case controllerToHost
    }

    /// Microseconds from 0000-01-01 to 1970-01-01 (719 528 days).
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// Datalink type for H4 (packets carry their indicator byte).
    public static let datalinkH4: UInt32 = 1002

    /// The 16-byte file header.
    public static var fileHeader: [UInt8] {
        Array("btsnoop".utf8) + [0] + bigEndian(UInt32(1)) + bigEndian(datalinkH4)
    }

    /// Creates (or truncates) `path` with mode 0600 and writes the file header.
    ///
    /// A capture holds every HCI packet in full, the LE Enable Encryption and LE Long Term Key
    /// Request Reply commands with their LTKs among them, and the keys SMP distributes: anyone who
    /// reads it can decrypt the links it recorded and those the keys protect later. So a new file
    /// is created readable by its owner only, whatever the umask, and an existing file keeps no
    /// group or other permission bits (it is tightened, never loosened); an existing file another
    /// user owns is refused. Throws ``BTSnoopFileError`` when the file cannot be opened or
    /// restricted.
    public convenience init(path: String) throws {
        let descriptor = try Self.openOwnerOnly(path)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.init(
            sink: { bytes in try handle.write(contentsOf: Data(bytes)) },
            microsecondsSinceUnixEpoch: { Int64(Date().timeIntervalSince1970 * 1_000_000) })
    }

    /// The permission bits a capture file may have: read and write for its owner.
    public static let fileMode: UInt16 = 0o600

    /// Opens `path` for writing, created 0600 or truncated, with the group and other bits
    /// removed from an existing file's mode.
    private static func openOwnerOnly(_ path: String) throws(BTSnoopFileError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(fileMode))
        guard descriptor >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            _ = close(descriptor)
            throw .cannotRestrict(path: path, errno: code)
        }
        // A file someone else owns (a planted file or symlink in a shared directory) stays theirs
        // to read whatever its mode: no keys go into it.
        guard status.st_uid == geteuid() else {
            _ = close(descriptor)
            throw .notOwned(path: path)
        }
        // Only ever removes bits: an existing 0400 or 0600 file stays as it is, a 0644 one becomes 0600.
        let current = UInt16(truncatingIfNeeded: status.st_mode) & 0o7777
        if current & 0o077 != 0 {
            guard fchmod(descriptor, mode_t(current & 0o700)) == 0 else {
                let code = errno
                _ = close(descriptor)
                throw .cannotRestrict(path: path, errno: code)
            }
        }
        return descriptor
    }

    /// A writer into any byte sink (tests use memory); `microsecondsSinceUnixEpoch` gives the
    /// timestamps.
    public init(sink: @escaping @Sendable ([UInt8]) throws -> Void, microsecondsSinceUnixEpoch: @escaping @Sendable () -> Int64) {
        self.output = Locked(Output(sink: sink))
        self.clock = microsecondsSinceUnixEpoch
        write(Self.fileHeader)
    }

    /// Appends one packet. A write error stops the capture silently (capturing must never break
    /// the link); see ``hasFailed``.
    public func record(_ packet: HCIPacket, direction: Direction) {
        let bytes = packet.h4Bytes
        var flags: UInt32 = direction == .controllerToHost ? 1 : 0
        if packet.type == .command || packet.type == .event { flags |= 2 }
        let record =
            Self.bigEndian(UInt32(bytes.count)) + Self.bigEndian(UInt32(bytes.count)) + Self.bigEndian(flags)
            + Self.bigEndian(UInt32(0)) + Self.bigEndian(UInt64(bitPattern: clock() + Self.unixEpochOffset)) + bytes
        write(record)
    }

    /// True once a write failed (the capture stopped there).
    public var hasFailed: Bool { output.withLock { $0.failed } }

    /// Stops writing (closes nothing the caller owns; the file handle closes when released).
    public func finish() {
        output.withLock { $0.sink = nil }
    }

    private func write(_ bytes: [UInt8]) {
        output.withLock { output in
            guard let sink = output.sink, !output.failed else { return }
            do {
                try sink(bytes)
            } catch {
                output.failed = true
            }
        }
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}

/// Why a btsnoop capture file could not be written.
public enum BTSnoopFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `open(2)` failed (a missing directory, no permission…); `errno` says why.
    case cannotOpen(path: String, errno: Int32)
    /// The file exists with group or other permissions and they could not be removed (a file
    /// owned by someone else, say): keys are not written into a file others may read.
    case cannotRestrict(path: String, errno: Int32)
    /// The file exists and belongs to another user (who could read it whatever its mode, say a
    /// file planted in a shared directory): keys are not written into it.
    case notOwned(path: String)

    /// The file and the reason, e.g. `cannot create the btsnoop file /tmp/x: ENOENT`.
    public var description: String {
        switch self {
        case let .cannotOpen(path, code): "cannot create the btsnoop file \(path): \(Self.name(code))"
        case let .cannotRestrict(path, code):
            "cannot restrict the btsnoop file \(path) to its owner (mode 0600): \(Self.name(code)); a capture holds link keys"
        case let .notOwned(path): "the btsnoop file \(path) belongs to another user; a capture holds link keys, so it was not written"
        }
    }

    private static func name(_ code: Int32) -> String { POSIXErrorCode(rawValue: code).map { "\($0)" } ?? "errno \(code)" }
}
