#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Reading `Data` (what CoreBluetooth hands over as a characteristic value) through
// `Data.withUnsafeBytes`. The `Sequence` versions work for `Data` too, but reach its bytes through
// `withContiguousStorageIfAvailable`, which the optimiser does not inline: these overloads are
// picked for `Data` arguments and cost a few nanoseconds instead of a few dozen. Same results and
// errors as the `Sequence` versions.

extension ByteReader {
    /// Runs `body` with a reader over the bytes of `data`, in place.
    @inlinable @inline(__always)
    public static func withReader<Result>(
        _ data: Data,
        _ body: (inout ByteReader) throws(ByteDecodingError) -> Result
    ) throws(ByteDecodingError) -> Result {
        let outcome = data.withUnsafeBytes { raw -> Swift.Result<Result, ByteDecodingError> in
            var reader = ByteReader(unsafeBytes: raw)
            return Swift.Result { () throws(ByteDecodingError) in try body(&reader) }
        }
        return try outcome.get()
    }
}

extension ByteDecodable {
    /// Decodes a whole value from `data`; bytes left over are an error.
    @inlinable @inline(__always)
    public init(decoding data: Data) throws(ByteDecodingError) {
        do {
            self = try ByteReader.withReader(data) { (reader) throws(ByteDecodingError) -> Self in
                let value = try Self(from: &reader)
                try reader.expectEnd()
                return value
            }
        } catch {
            throw Self.named(error)
        }
    }

    /// Decodes a value from the start of `data`, allowing bytes after it; returns the value and
    /// how many bytes it used.
    @inlinable
    public static func decodePrefix(of data: Data) throws(ByteDecodingError) -> (value: Self, byteCount: Int) {
        do {
            return try ByteReader.withReader(data) { (reader) throws(ByteDecodingError) -> (Self, Int) in
                let value = try Self(from: &reader)
                return (value, reader.offset)
            }
        } catch {
            throw named(error)
        }
    }
}
