/// A value that reads itself from bytes, field by field, through a ``ByteReader``.
///
/// Conformers read their fields in wire order and throw ``ByteDecodingError`` for anything the
/// format does not allow. They do not check for trailing bytes: ``init(decoding:)-(Bytes)`` does, so the
/// same type can be read whole or as part of a larger value.
public protocol ByteDecodable {
    /// Reads the value at the reader's cursor, leaving the cursor after its last byte.
    init(from reader: inout ByteReader) throws(ByteDecodingError)
}

/// A value that writes itself as bytes through a ``ByteWriter``.
public protocol ByteEncodable {
    /// Appends the value's wire form; throws when a field cannot be represented.
    func encode(to writer: inout ByteWriter) throws(ByteEncodingError)
}

/// A value that both reads and writes itself.
public typealias ByteCodable = ByteDecodable & ByteEncodable

extension ByteDecodable {
    /// Decodes a whole value from `bytes`; bytes left over are an error.
    ///
    /// Errors carry this type's name, as in
    /// `HeartRateMeasurement: needs 2 bytes for 'energyExpended' at offset 2, 1 left`.
    @inlinable @inline(__always)
    public init<Bytes: Sequence<UInt8>>(decoding bytes: Bytes) throws(ByteDecodingError) {
        do {
            self = try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) -> Self in
                let value = try Self(from: &reader)
                try reader.expectEnd()
                return value
            }
        } catch {
            throw Self.named(error)
        }
    }

    /// Decodes a value from the start of `bytes`, allowing bytes after it; returns the value and
    /// how many bytes it used.
    @inlinable
    public static func decodePrefix<Bytes: Sequence<UInt8>>(of bytes: Bytes) throws(ByteDecodingError) -> (value: Self, byteCount: Int) {
        do {
            return try ByteReader.withReader(bytes) { (reader) throws(ByteDecodingError) -> (Self, Int) in
                let value = try Self(from: &reader)
                return (value, reader.offset)
            }
        } catch {
            throw named(error)
        }
    }

    @usableFromInline
    internal static func named(_ error: ByteDecodingError) -> ByteDecodingError {
        var error = error
        if error.typeName.isEmpty { error.typeName = String(describing: Self.self) }
        return error
    }
}

extension ByteEncodable {
    /// The value's wire form.
    @inlinable
    public func encodedBytes() throws(ByteEncodingError) -> [UInt8] {
        var writer = ByteWriter()
        try encode(to: &writer)
        return writer.bytes
    }
}

// MARK: - Standard conformances

/// Fixed-width integers read and write themselves little-endian, the Bluetooth default.
public protocol LittleEndianByteCodable: FixedWidthInteger, ByteCodable {}

extension LittleEndianByteCodable {
    @inlinable @inline(__always)
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = try reader.read(Self.self, field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(self)
    }
}

/// Unsigned bytes read and written as themselves.
extension UInt8: LittleEndianByteCodable {}
/// Signed bytes, two's complement.
extension Int8: LittleEndianByteCodable {}
/// 16-bit unsigned integers, little-endian as BLE sends them.
extension UInt16: LittleEndianByteCodable {}
/// 16-bit signed integers, little-endian.
extension Int16: LittleEndianByteCodable {}
/// 32-bit unsigned integers, little-endian.
extension UInt32: LittleEndianByteCodable {}
/// 32-bit signed integers, little-endian.
extension Int32: LittleEndianByteCodable {}
/// 64-bit unsigned integers, little-endian.
extension UInt64: LittleEndianByteCodable {}
/// 64-bit signed integers, little-endian.
extension Int64: LittleEndianByteCodable {}

extension UInt24: ByteCodable {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = try reader.read(UInt24.self, field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(self)
    }
}

extension Int24: ByteCodable {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = try reader.read(Int24.self, field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(self)
    }
}

/// IEEE 754 binary32, little-endian (used by some vendor characteristics; SIG medical values use
/// ``MedicalFloat32`` instead).
extension Float: ByteCodable {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = Float(bitPattern: try reader.read(UInt32.self, field: ""))
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bitPattern)
    }
}

/// IEEE 754 binary64, little-endian.
extension Double: ByteCodable {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = Double(bitPattern: try reader.read(UInt64.self, field: ""))
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bitPattern)
    }
}

/// A string is UTF-8 text filling the rest of the value, with no terminator (as the Device
/// Information strings and Device Name are defined).
extension String: ByteCodable {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = try reader.readRemainingUTF8(field: "")
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.writeUTF8(self)
    }
}

/// Raw bytes: the rest of the value, unchanged.
extension Array: ByteDecodable where Element == UInt8 {
    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        self = reader.readRemainingBytes()
    }
}

/// Raw bytes: written as they are.
extension Array: ByteEncodable where Element == UInt8 {
    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(bytes: self)
    }
}
