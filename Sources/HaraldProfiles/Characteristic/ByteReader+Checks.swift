import HaraldCodec

extension ByteReader {
    /// Reads one byte and checks that it lies in `allowed`; otherwise throws an invalid-value
    /// error naming `field` and saying what is allowed.
    @inlinable
    mutating func readUInt8(field: String, allowed: ClosedRange<UInt8>, meaning: String) throws(ByteDecodingError) -> UInt8 {
        let start = offset
        let value = try read(UInt8.self, field: field)
        guard allowed.contains(value) else {
            throw invalidValue("\(value) is outside \(allowed.lowerBound)…\(allowed.upperBound) (\(meaning))", field: field, at: start)
        }
        return value
    }
}

/// Throws a ``HaraldCodec/ByteEncodingError`` for `field` unless `condition` holds.
@inlinable
func requireEncodable(_ condition: Bool, field: String, _ detail: @autoclosure () -> String) throws(ByteEncodingError) {
    if !condition { throw ByteEncodingError(field: field, detail: detail()) }
}
