/// A bounds-checked cursor over a run of bytes.
///
/// A value reads its fields in wire order: each `read` checks that enough bytes remain, returns
/// the field and moves the cursor past it. Running past the end throws a ``ByteDecodingError``
/// naming the field and the offset — never a trap, whatever the input.
///
/// A reader borrows the bytes it reads, so it only lives inside the closure of
/// ``withReader(_:_:)-(Bytes,_)`` (or the `init(decoding:)` of a ``ByteDecodable`` value). `[UInt8]`,
/// `ArraySlice<UInt8>` and `Data` are read in place, without a copy.
///
/// ```swift
/// let rr = try ByteReader.withReader(bytes) { reader in
///     let flags = try reader.read(UInt8.self, field: "flags")
///     return try reader.read(UInt16.self, field: "rrInterval")
/// }
/// ```
public struct ByteReader {
    @usableFromInline internal let buffer: UnsafeRawBufferPointer
    /// Offset of `buffer[0]` within the whole input, so errors from sub-readers still report
    /// offsets into the original bytes.
    @usableFromInline internal let origin: Int
    @usableFromInline internal var cursor: Int

    /// Makes a reader over memory the caller keeps alive for the reader's whole life.
    ///
    /// Prefer ``withReader(_:_:)-(Bytes,_)``; this is for code that already holds a buffer pointer.
    @inlinable
    public init(unsafeBytes buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        self.origin = 0
        self.cursor = 0
    }

    @inlinable
    internal init(buffer: UnsafeRawBufferPointer, origin: Int) {
        self.buffer = buffer
        self.origin = origin
        self.cursor = 0
    }

    /// Runs `body` with a reader over `bytes`, reading them in place when they are contiguous
    /// (arrays, slices, `Data`) and from a temporary copy otherwise.
    @inlinable @inline(__always)
    public static func withReader<Bytes: Sequence<UInt8>, Result>(
        _ bytes: Bytes,
        _ body: (inout ByteReader) throws(ByteDecodingError) -> Result
    ) throws(ByteDecodingError) -> Result {
        var outcome: Swift.Result<Result, ByteDecodingError>?
        _ = bytes.withContiguousStorageIfAvailable { elements in
            var reader = ByteReader(unsafeBytes: UnsafeRawBufferPointer(elements))
            outcome = Swift.Result { () throws(ByteDecodingError) in try body(&reader) }
        }
        if outcome == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { raw in
                var reader = ByteReader(unsafeBytes: raw)
                outcome = Swift.Result { () throws(ByteDecodingError) in try body(&reader) }
            }
        }
        return try outcome!.get()
    }

    // MARK: Position

    /// The number of bytes this reader covers.
    @inlinable public var count: Int { buffer.count }
    /// Offset of the cursor from the start of the input.
    @inlinable public var offset: Int { origin + cursor }
    /// Bytes not read yet.
    @inlinable public var remainingCount: Int { buffer.count - cursor }
    /// True when every byte has been read.
    @inlinable public var isAtEnd: Bool { cursor >= buffer.count }

    /// Throws ``ByteDecodingError/Reason/trailingBytes(count:)`` unless every byte was read.
    @inlinable
    public func expectEnd() throws(ByteDecodingError) {
        if cursor < buffer.count {
            throw ByteDecodingError(field: "", offset: offset, reason: .trailingBytes(count: remainingCount))
        }
    }

    /// An error for a field that was read but holds a value the format does not allow.
    ///
    /// `offset` defaults to the cursor; pass the offset the field started at when it is already read.
    @inlinable
    public func invalidValue(_ detail: String, field: String, at offset: Int? = nil) -> ByteDecodingError {
        ByteDecodingError(field: field, offset: offset ?? self.offset, reason: .invalidValue(detail))
    }

    /// Checks that `count` bytes remain for `field`; returns the start index of the field.
    @inlinable @inline(__always)
    internal mutating func claim(_ count: Int, field: @autoclosure () -> String) throws(ByteDecodingError) -> Int {
        let start = cursor
        guard count >= 0, buffer.count &- start >= count else {
            throw shortfall(count, at: start, field: field())
        }
        cursor = start &+ count
        return start
    }

    /// The error for a field that does not fit, kept out of line so the fast path stays small.
    @usableFromInline @inline(never)
    internal func shortfall(_ count: Int, at start: Int, field: String) -> ByteDecodingError {
        // A negative count comes from a bad length field; "needs -3 bytes" would mislead.
        let reason: ByteDecodingError.Reason =
            count < 0
            ? .invalidValue("negative byte count \(count)")
            : .truncated(needed: count, available: buffer.count &- start)
        return ByteDecodingError(field: field, offset: origin &+ start, reason: reason)
    }

    // MARK: Integers

    /// Reads a fixed-width integer (little-endian unless told otherwise).
    @inlinable @inline(__always)
    public mutating func read<T: FixedWidthInteger>(
        _ type: T.Type = T.self, byteOrder: ByteOrder = .littleEndian, field: String
    ) throws(ByteDecodingError) -> T {
        let start = try claim(MemoryLayout<T>.size, field: field)
        let raw = buffer.loadUnaligned(fromByteOffset: start, as: T.self)
        return byteOrder == .littleEndian ? T(littleEndian: raw) : T(bigEndian: raw)
    }

    /// Reads a 24-bit unsigned integer.
    @inlinable @inline(__always)
    public mutating func read(
        _ type: UInt24.Type, byteOrder: ByteOrder = .littleEndian, field: String
    ) throws(ByteDecodingError) -> UInt24 {
        let start = try claim(3, field: field)
        let b0 = UInt32(buffer[start]), b1 = UInt32(buffer[start &+ 1]), b2 = UInt32(buffer[start &+ 2])
        let value = byteOrder == .littleEndian ? (b0 | b1 << 8 | b2 << 16) : (b2 | b1 << 8 | b0 << 16)
        return UInt24(truncatingIfNeeded: value)
    }

    /// Reads a 24-bit two's-complement integer.
    @inlinable
    public mutating func read(
        _ type: Int24.Type, byteOrder: ByteOrder = .littleEndian, field: String
    ) throws(ByteDecodingError) -> Int24 {
        Int24(bitPattern: try read(UInt24.self, byteOrder: byteOrder, field: field))
    }

    /// Returns the next byte without moving the cursor, or nil at the end.
    @inlinable
    public func peekByte() -> UInt8? {
        cursor < buffer.count ? buffer[cursor] : nil
    }

    // MARK: Nested values

    /// Reads a value that decodes itself; errors inside it get `field` prepended to their path.
    @inlinable @inline(__always)
    public mutating func decode<T: ByteDecodable>(_ type: T.Type = T.self, field: String) throws(ByteDecodingError) -> T {
        if let value = try readCodecValue(T.self, field: field) { return value }
        do {
            return try T(from: &self)
        } catch {
            throw error.nested(in: field)
        }
    }

    /// Reads the codec's own fixed-size values (integers, SFLOAT, FLOAT) directly, exactly as their
    /// `init(from:)` does (same bytes, same error with `field` as its path); nil for other types.
    ///
    /// The optimiser cannot see through a conformance declared in another module, so from the
    /// caller's module `T(from:)` is an indirect call through the witness table even when `T` is
    /// known. Once `decode` is specialised for a concrete `T`, the type tests here fold to a single
    /// inlined read (or to nothing for other types).
    @inlinable @inline(__always)
    internal mutating func readCodecValue<T>(_ type: T.Type, field: String) throws(ByteDecodingError) -> T? {
        if T.self == MedicalFloat16.self {
            return unsafeBitCast(MedicalFloat16(bitPattern: try read(UInt16.self, field: field)), to: T.self)
        }
        if T.self == MedicalFloat32.self {
            return unsafeBitCast(MedicalFloat32(bitPattern: try read(UInt32.self, field: field)), to: T.self)
        }
        if T.self == UInt8.self { return unsafeBitCast(try read(UInt8.self, field: field), to: T.self) }
        if T.self == UInt16.self { return unsafeBitCast(try read(UInt16.self, field: field), to: T.self) }
        if T.self == UInt32.self { return unsafeBitCast(try read(UInt32.self, field: field), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try read(UInt64.self, field: field), to: T.self) }
        if T.self == Int8.self { return unsafeBitCast(try read(Int8.self, field: field), to: T.self) }
        if T.self == Int16.self { return unsafeBitCast(try read(Int16.self, field: field), to: T.self) }
        if T.self == Int32.self { return unsafeBitCast(try read(Int32.self, field: field), to: T.self) }
        if T.self == Int64.self { return unsafeBitCast(try read(Int64.self, field: field), to: T.self) }
        if T.self == UInt24.self { return unsafeBitCast(try read(UInt24.self, field: field), to: T.self) }
        return nil
    }

    /// Reads a value from exactly the next `count` bytes; the value must use all of them.
    @inlinable
    public mutating func decode<T: ByteDecodable>(
        _ type: T.Type = T.self, byteCount count: Int, field: String
    ) throws(ByteDecodingError) -> T {
        var sub = try subReader(count: count, field: field)
        do {
            let value = try T(from: &sub)
            try sub.expectEnd()
            return value
        } catch {
            throw error.nested(in: field)
        }
    }

    /// Claims the next `count` bytes and returns a reader over just them.
    @inlinable
    public mutating func subReader(count: Int, field: String) throws(ByteDecodingError) -> ByteReader {
        let start = try claim(count, field: field)
        let slice = UnsafeRawBufferPointer(rebasing: buffer[start..<(start &+ count)])
        return ByteReader(buffer: slice, origin: origin &+ start)
    }

    // MARK: Byte runs and text

    /// Moves the cursor past `count` bytes.
    @inlinable
    public mutating func skip(_ count: Int, field: String) throws(ByteDecodingError) {
        _ = try claim(count, field: field)
    }

    /// Reads the next `count` bytes into a new array.
    @inlinable
    public mutating func readBytes(count: Int, field: String) throws(ByteDecodingError) -> [UInt8] {
        let start = try claim(count, field: field)
        return Array(buffer[start..<(start &+ count)])
    }

    /// Reads every byte that is left (possibly none).
    @inlinable
    public mutating func readRemainingBytes() -> [UInt8] {
        let start = cursor
        cursor = buffer.count
        return Array(buffer[start..<buffer.count])
    }

    /// Calls `body` with the next `count` bytes in place, without copying them.
    @inlinable
    public mutating func withBytes<R>(
        count: Int, field: String, _ body: (UnsafeRawBufferPointer) throws(ByteDecodingError) -> R
    ) throws(ByteDecodingError) -> R {
        let start = try claim(count, field: field)
        return try body(UnsafeRawBufferPointer(rebasing: buffer[start..<(start &+ count)]))
    }

    /// Reads `count` bytes of UTF-8 text.
    ///
    /// - Parameters:
    ///   - count: the length of the text in bytes (BLE strings carry no length of their own).
    ///   - field: the field's name, for the error when the bytes run out or are not UTF-8.
    ///   - trimmingNulls: drop trailing NUL bytes first (many devices pad or terminate
    ///     strings that the specification says carry no terminator).
    @inlinable
    public mutating func readUTF8(count: Int, field: String, trimmingNulls: Bool = false) throws(ByteDecodingError) -> String {
        let start = try claim(count, field: field)
        var end = start &+ count
        if trimmingNulls {
            while end > start, buffer[end &- 1] == 0 { end &-= 1 }
        }
        let run = UnsafeRawBufferPointer(rebasing: buffer[start..<end])
        // `String(validating:)` needs iOS 18; a validating transcode pass works everywhere.
        let invalid = transcode(run.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        if invalid {
            throw ByteDecodingError(field: field, offset: origin &+ start, reason: .invalidUTF8)
        }
        return String(decoding: run, as: UTF8.self)
    }

    /// Reads the rest of the input as UTF-8 text.
    @inlinable
    public mutating func readRemainingUTF8(field: String, trimmingNulls: Bool = false) throws(ByteDecodingError) -> String {
        try readUTF8(count: remainingCount, field: field, trimmingNulls: trimmingNulls)
    }

    // MARK: Flags

    /// Reads a flags field of `Raw`'s width and views it through the named bits of `Bit`.
    @inlinable @inline(__always)
    public mutating func readFlags<Bit: FlagBit, Raw: FixedWidthInteger & UnsignedInteger & Sendable>(
        _ bits: Bit.Type, as raw: Raw.Type, field: String = "flags"
    ) throws(ByteDecodingError) -> Flags<Bit, Raw> {
        Flags(rawValue: try read(Raw.self, field: field))
    }

    /// Reads a 24-bit flags field (such as PLX device and sensor status).
    @inlinable
    public mutating func readFlags24<Bit: FlagBit>(
        _ bits: Bit.Type, field: String = "flags"
    ) throws(ByteDecodingError) -> Flags<Bit, UInt32> {
        Flags(rawValue: try read(UInt24.self, field: field).value)
    }
}
