/// Builds a run of bytes field by field, the reverse of ``ByteReader``.
///
/// ```swift
/// var writer = ByteWriter()
/// writer.write(UInt8(0x01))
/// writer.write(UInt16(257))          // little-endian: 01 01
/// let bytes = writer.bytes
/// ```
public struct ByteWriter: Sendable {
    /// The bytes written so far.
    public var bytes: [UInt8] { storage }
    @usableFromInline internal var storage: [UInt8]

    /// An empty writer with room for `capacity` bytes before it grows.
    @inlinable
    public init(capacity: Int = 16) {
        storage = []
        storage.reserveCapacity(Swift.max(0, capacity))
    }

    /// The number of bytes written so far.
    @inlinable public var count: Int { storage.count }

    /// Appends a fixed-width integer (little-endian unless told otherwise).
    @inlinable
    public mutating func write<T: FixedWidthInteger>(_ value: T, byteOrder: ByteOrder = .littleEndian) {
        let ordered = byteOrder == .littleEndian ? value.littleEndian : value.bigEndian
        withUnsafeBytes(of: ordered) { storage.append(contentsOf: $0) }
    }

    /// Appends a 24-bit unsigned integer.
    @inlinable
    public mutating func write(_ value: UInt24, byteOrder: ByteOrder = .littleEndian) {
        let v = value.value
        let b0 = UInt8(truncatingIfNeeded: v), b1 = UInt8(truncatingIfNeeded: v >> 8), b2 = UInt8(truncatingIfNeeded: v >> 16)
        if byteOrder == .littleEndian {
            storage.append(b0); storage.append(b1); storage.append(b2)
        } else {
            storage.append(b2); storage.append(b1); storage.append(b0)
        }
    }

    /// Appends a 24-bit signed integer.
    @inlinable
    public mutating func write(_ value: Int24, byteOrder: ByteOrder = .littleEndian) {
        write(value.bitPattern, byteOrder: byteOrder)
    }

    /// Appends raw bytes.
    @inlinable
    public mutating func write<Bytes: Sequence<UInt8>>(bytes run: Bytes) {
        storage.append(contentsOf: run)
    }

    /// Appends text as UTF-8, without a terminator.
    @inlinable
    public mutating func writeUTF8(_ text: String) {
        storage.append(contentsOf: text.utf8)
    }

    /// Appends a flags field at its raw width.
    @inlinable
    public mutating func write<Bit, Raw>(_ flags: Flags<Bit, Raw>) {
        write(flags.rawValue)
    }

    /// Appends a 24-bit flags field; bits above 23 are dropped.
    @inlinable
    public mutating func write24<Bit>(_ flags: Flags<Bit, UInt32>) {
        write(UInt24(truncatingIfNeeded: flags.rawValue))
    }

    /// Appends a value that encodes itself.
    @inlinable
    public mutating func encode<T: ByteEncodable>(_ value: T) throws(ByteEncodingError) {
        try value.encode(to: &self)
    }

    /// Overwrites one byte already written (for example a flags byte whose bits are only known
    /// after the optional fields were written). Out-of-range indexes are ignored.
    @inlinable
    public mutating func replaceByte(at index: Int, with value: UInt8) {
        guard storage.indices.contains(index) else { return }
        storage[index] = value
    }
}
