import Foundation

/// The byte reader found in many BLE tutorials, kept as the baseline the codec is measured
/// against: a class over `Data` with an integer cursor whose `readNext()` copies the next
/// `MemoryLayout<T>.size` bytes into a new `Data` and loads a `T` from it. It does no bounds
/// checks (short input traps) and reads in host byte order (little-endian here).
final class DataReader {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        self.offset = data.startIndex
    }

    func readNext<T>() -> T {
        let size = MemoryLayout<T>.size
        let chunk = data.subdata(in: offset..<(offset + size))
        offset += size
        return chunk.withUnsafeBytes { $0.load(as: T.self) }
    }

    /// True while unread bytes remain (for lists that fill the rest of a value, such as RR intervals).
    var hasMoreBytes: Bool { offset < data.endIndex }
}
