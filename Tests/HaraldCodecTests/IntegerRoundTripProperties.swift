import HaraldCodec
import PropertyBased
import Testing

/// Writes `value`, checks the bytes against a shift-by-shift expectation, and reads it back.
private func checkRoundTrip<T: FixedWidthInteger>(_ value: T, byteOrder: ByteOrder, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var writer = ByteWriter()
    writer.write(value, byteOrder: byteOrder)
    let size = T.bitWidth / 8
    let littleEndian = (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    #expect(writer.bytes == (byteOrder == .littleEndian ? littleEndian : littleEndian.reversed()), sourceLocation: sourceLocation)
    let (read, end) = try ByteReader.withReader(writer.bytes) { r throws(ByteDecodingError) in
        (try r.read(T.self, byteOrder: byteOrder, field: "value"), r.isAtEnd)
    }
    #expect(read == value, sourceLocation: sourceLocation)
    #expect(end, sourceLocation: sourceLocation)
}

/// The value's own `ByteCodable` conformance round-trips too.
private func checkCodable<T: ByteCodable & Equatable>(_ value: T) throws {
    #expect(try T(decoding: value.encodedBytes()) == value)
}

@Suite("Property: integers encode then decode to themselves")
struct IntegerRoundTripProperties {
    @Test func uint8() async {
        await propertyCheck(input: Gen<UInt8>.value()) { value in
            try checkRoundTrip(value, byteOrder: .littleEndian)
            try checkCodable(value)
        }
    }

    @Test func int8() async {
        await propertyCheck(input: Gen<Int8>.value()) { value in
            try checkRoundTrip(value, byteOrder: .littleEndian)
            try checkCodable(value)
        }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func uint16(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<UInt16>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func int16(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<Int16>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func uint32(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<UInt32>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func int32(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<Int32>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func uint64(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<UInt64>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func int64(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<Int64>.value()) { value in try checkRoundTrip(value, byteOrder: byteOrder) }
    }

    @Test func littleEndianCodableConformances() async {
        await propertyCheck(input: Gen<UInt64>.value()) { bits in
            try checkCodable(UInt16(truncatingIfNeeded: bits))
            try checkCodable(Int16(truncatingIfNeeded: bits))
            try checkCodable(UInt32(truncatingIfNeeded: bits))
            try checkCodable(Int32(truncatingIfNeeded: bits))
            try checkCodable(bits)
            try checkCodable(Int64(bitPattern: bits))
        }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func uint24(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<UInt32>.value(in: 0...0xFF_FFFF)) { raw in
            let value = UInt24(exactly: raw)!
            var writer = ByteWriter()
            writer.write(value, byteOrder: byteOrder)
            let little = (0..<3).map { UInt8(truncatingIfNeeded: raw >> ($0 * 8)) }
            #expect(writer.bytes == (byteOrder == .littleEndian ? little : little.reversed()))
            let read = try ByteReader.withReader(writer.bytes) { r throws(ByteDecodingError) in
                try r.read(UInt24.self, byteOrder: byteOrder, field: "v")
            }
            #expect(read == value)
            try checkCodable(value)
        }
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func int24(byteOrder: ByteOrder) async {
        await propertyCheck(input: Gen<Int32>.value(in: -0x80_0000...0x7F_FFFF)) { raw in
            let value = Int24(exactly: raw)!
            var writer = ByteWriter()
            writer.write(value, byteOrder: byteOrder)
            let read = try ByteReader.withReader(writer.bytes) { r throws(ByteDecodingError) in
                try r.read(Int24.self, byteOrder: byteOrder, field: "v")
            }
            #expect(read.value == raw)
            try checkCodable(value)
        }
    }
}
