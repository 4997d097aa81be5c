import HaraldCodec

extension ByteReader {
    /// Reads one byte and checks that it lies in `allowed`; otherwise throws an invalid-value
    /// error naming `field` and saying what is allowed.
    @inlinable @inline(__always)
    mutating func readUInt8(field: String, allowed: ClosedRange<UInt8>, meaning: String) throws(ByteDecodingError) -> UInt8 {
        let start = offset
        let value = try read(UInt8.self, field: field)
        guard allowed.contains(value) else {
            throw outOfRange(value, allowed: allowed, meaning: meaning, field: field, at: start)
        }
        return value
    }

    /// The error for a byte outside its allowed range, kept out of line so the checked read above
    /// stays a compare and a branch where it is inlined.
    @usableFromInline @inline(never)
    func outOfRange(_ value: UInt8, allowed: ClosedRange<UInt8>, meaning: String, field: String, at start: Int) -> ByteDecodingError {
        invalidValue("\(value) is outside \(allowed.lowerBound)…\(allowed.upperBound) (\(meaning))", field: field, at: start)
    }
}

/// Throws a ``HaraldCodec/ByteEncodingError`` for `field` unless `condition` holds.
@inlinable
func requireEncodable(_ condition: Bool, field: String, _ detail: @autoclosure () -> String) throws(ByteEncodingError) {
    if !condition { throw ByteEncodingError(field: field, detail: detail()) }
}
