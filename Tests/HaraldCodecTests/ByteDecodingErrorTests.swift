import HaraldCodec
import Testing

@Suite("Error descriptions")
struct ByteDecodingErrorTests {
    @Test func truncationReadsLikeTheDocumentedExample() {
        // Flags 0x08: 8-bit rate, energy expended present; one byte of it is missing.
        let error = decodingError { () throws(ByteDecodingError) in try HeartRateMeasurement(decoding: [0x08, 0x48, 0x01]) }
        #expect(error?.description == "HeartRateMeasurement: needs 2 bytes for 'energyExpended' at offset 2, 1 left")
    }

    @Test func truncationOfOneByteUsesTheSingular() {
        let error = decodingError { () throws(ByteDecodingError) in try HeartRateMeasurement(decoding: [0x00]) }
        #expect(error?.description == "HeartRateMeasurement: needs 1 byte for 'heartRate' at offset 1, 0 left")
    }

    @Test func trailingBytesDescription() {
        let error = decodingError { () throws(ByteDecodingError) in try HeartRateMeasurement(decoding: [0x00, 0x48, 0xAA, 0xBB]) }
        #expect(error?.description == "HeartRateMeasurement: 2 unexpected trailing bytes at offset 2")
    }

    @Test func oneTrailingByteUsesTheSingular() {
        let error = ByteDecodingError(typeName: "X", field: "", offset: 5, reason: .trailingBytes(count: 1))
        #expect(error.description == "X: 1 unexpected trailing byte at offset 5")
    }

    @Test func invalidValueDescription() {
        let error = decodingError { () throws(ByteDecodingError) in try StampedRecord(decoding: [0x00, 0xE8, 0x07, 0x00, 0x01]) }
        #expect(error?.description == "StampedRecord: invalid 'timestamp.month' at offset 3: month 0 is not 1…12")
    }

    @Test func invalidUTF8Description() {
        let error = ByteDecodingError(typeName: "DeviceName", field: "name", offset: 0, reason: .invalidUTF8)
        #expect(error.description == "DeviceName: 'name' at offset 0 is not valid UTF-8")
    }

    @Test func bareReaderErrorsHaveNoTypePrefix() {
        let error = ByteDecodingError(field: "x", offset: 0, reason: .truncated(needed: 2, available: 0))
        #expect(error.description == "needs 2 bytes for 'x' at offset 0, 0 left")
    }

    @Test func typeNameIsNotReplacedByAnOuterDecode() {
        // A named error from an inner whole-value decode keeps the inner type's name.
        let error = decodingError { () throws(ByteDecodingError) in try ThrowsNamedError(decoding: []) }
        #expect(error == ThrowsNamedError.error)
    }

    @Test func encodingErrorDescription() {
        let error = ByteEncodingError(field: "length", detail: "value too long")
        #expect(error.description == "cannot encode 'length': value too long")
    }
}

/// Always fails with an error that already names a type.
private struct ThrowsNamedError: ByteDecodable {
    static let error = ByteDecodingError(typeName: "Inner", field: "a", offset: 0, reason: .invalidUTF8)

    init(from reader: inout ByteReader) throws(ByteDecodingError) {
        throw Self.error
    }
}
