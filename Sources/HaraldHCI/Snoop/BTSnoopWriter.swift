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

    /// Creates (or truncates) `path` and writes the file header.
    public convenience init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        self.init(
            sink: { bytes in try handle.write(contentsOf: Data(bytes)) },
            microsecondsSinceUnixEpoch: { Int64(Date().timeIntervalSince1970 * 1_000_000) })
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
        let record = Self.bigEndian(UInt32(bytes.count)) + Self.bigEndian(UInt32(bytes.count)) + Self.bigEndian(flags)
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
