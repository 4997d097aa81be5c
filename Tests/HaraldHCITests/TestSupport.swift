import HaraldCodec
import Testing

/// Bytes from hex text written in a test; records an issue (and gives no bytes) if the text is bad.
func bytes(_ hex: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    do {
        return try Hex.decode(hex)
    } catch {
        Issue.record("bad hex in test: \(error)", sourceLocation: sourceLocation)
        return []
    }
}
