import HaraldCodec

/// The `[id][length][value]…` triplets of a query response or push: setting or status values by
/// ID, big-endian.
///
/// A view over the message bytes: building it walks and checks the triplets once but copies
/// nothing and allocates nothing; lookups walk the bytes again (an absent ID is answered at once
/// from a 256-bit presence map). When an ID appears twice, the last value wins, as it would in a
/// dictionary filled in order. Zero-length values are legal (a registered ID without a value yet).
public struct GoProValues: Sendable, Hashable, Sequence {
    /// One triplet: an ID and its raw value bytes.
    public struct Entry: Sendable, Hashable {
        /// The setting or status ID.
        public var id: UInt8
        /// The value's bytes (indices are those of the message).
        public var value: ArraySlice<UInt8>
    }

    @usableFromInline let bytes: [UInt8]
    @usableFromInline let start: Int
    @usableFromInline var presence: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// How many triplets there are (repeated IDs counted each time).
    public private(set) var count = 0

    /// The triplets in `bytes[start...]`. Throws when a triplet is cut short.
    public init(bytes: [UInt8], start: Int = 0) throws(ByteDecodingError) {
        self.bytes = bytes
        self.start = Swift.min(Swift.max(start, 0), bytes.count)
        var offset = self.start
        let end = bytes.count
        try bytes.withUnsafeBufferPointer { (buffer) throws(ByteDecodingError) in
            while offset < end {
                guard offset + 2 <= end else {
                    throw ByteDecodingError(typeName: "GoProValues", field: "length", offset: offset + 1, reason: .truncated(needed: 1, available: 0))
                }
                let id = buffer[offset]
                let length = Int(buffer[offset + 1])
                guard offset + 2 + length <= end else {
                    throw ByteDecodingError(
                        typeName: "GoProValues", field: "value \(id)", offset: offset + 2,
                        reason: .truncated(needed: length, available: end - offset - 2))
                }
                mark(id)
                count += 1
                offset += 2 + length
            }
        }
    }

    /// No values.
    public init() {
        bytes = []
        start = 0
    }

    @inline(__always)
    private mutating func mark(_ id: UInt8) {
        let bit = UInt64(1) << UInt64(id & 63)
        switch id >> 6 {
        case 0: presence.0 |= bit
        case 1: presence.1 |= bit
        case 2: presence.2 |= bit
        default: presence.3 |= bit
        }
    }

    /// True when `id` has a value (possibly empty).
    @inlinable
    public func contains(_ id: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(id & 63)
        switch id >> 6 {
        case 0: return presence.0 & bit != 0
        case 1: return presence.1 & bit != 0
        case 2: return presence.2 & bit != 0
        default: return presence.3 & bit != 0
        }
    }

    /// The raw value of `id`, or nil when absent.
    public subscript(id: UInt8) -> ArraySlice<UInt8>? {
        guard contains(id) else { return nil }
        var found: Range<Int>?
        var offset = start
        while offset + 2 <= bytes.count {
            let length = Int(bytes[offset + 1])
            if bytes[offset] == id { found = offset + 2..<offset + 2 + length }
            offset += 2 + length
        }
        return found.map { bytes[$0] }
    }

    /// The raw value of a status.
    public subscript(status: GoProStatusID) -> ArraySlice<UInt8>? { self[status.rawValue] }
    /// The raw value of a setting.
    public subscript(setting: GoProSettingID) -> ArraySlice<UInt8>? { self[setting.rawValue] }

    /// The value of `id` as a big-endian unsigned integer (1…8 bytes); nil when absent, empty or
    /// longer than 8 bytes.
    public func integer(_ id: UInt8) -> UInt64? {
        guard let value = self[id], (1...8).contains(value.count) else { return nil }
        return value.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The value of `id` as a big-endian two's-complement signed integer (1…8 bytes).
    public func signedInteger(_ id: UInt8) -> Int64? {
        guard let value = self[id], let raw = integer(id) else { return nil }
        let shift = UInt64(64 - value.count * 8)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }

    /// The value of `id` as a flag: a one-byte value, true when non-zero.
    public func bool(_ id: UInt8) -> Bool? {
        guard let value = self[id], value.count == 1 else { return nil }
        return value.first != 0
    }

    /// The value of `id` as UTF-8 text (trailing NULs removed); nil when absent or not UTF-8.
    public func string(_ id: UInt8) -> String? {
        guard var value = self[id] else { return nil }
        while value.last == 0 { value.removeLast() }
        let invalid = transcode(value.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return invalid ? nil : String(decoding: value, as: UTF8.self)
    }

    /// The value of the status or setting as an unsigned big-endian integer, if present and at most 8 bytes.
    public func integer(_ status: GoProStatusID) -> UInt64? { integer(status.rawValue) }
    /// The value of the status or setting as an unsigned big-endian integer, if present and at most 8 bytes.
    public func integer(_ setting: GoProSettingID) -> UInt64? { integer(setting.rawValue) }
    /// The value as a boolean (one byte, 0 or 1), if present.
    public func bool(_ status: GoProStatusID) -> Bool? { bool(status.rawValue) }
    /// The value as a boolean (one byte, 0 or 1), if present.
    public func bool(_ setting: GoProSettingID) -> Bool? { bool(setting.rawValue) }
    /// The value as UTF-8 text, if present.
    public func string(_ status: GoProStatusID) -> String? { string(status.rawValue) }
    /// The value as UTF-8 text, if present.
    public func string(_ setting: GoProSettingID) -> String? { string(setting.rawValue) }

    /// The distinct IDs present, in ascending order.
    public var ids: [UInt8] { (0...255).map(UInt8.init).filter(contains) }

    /// The values as a dictionary (last value wins for repeated IDs); allocates.
    public var dictionary: [UInt8: [UInt8]] {
        var result: [UInt8: [UInt8]] = [:]
        for entry in self { result[entry.id] = Array(entry.value) }
        return result
    }

    /// The triplets in message order.
    public struct Iterator: IteratorProtocol {
        let bytes: [UInt8]
        var offset: Int

        /// The next ID-length-value triplet; nil after the last complete one.
        public mutating func next() -> Entry? {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset + 1])
            let end = offset + 2 + length
            guard end <= bytes.count else { return nil }
            defer { offset = end }
            return Entry(id: bytes[offset], value: bytes[offset + 2..<end])
        }
    }

    /// Walks the triplets in message order, repeated IDs included.
    public func makeIterator() -> Iterator { Iterator(bytes: bytes, offset: start) }
    /// The number of triplets in the message, repeated IDs counted each time.
    public var underestimatedCount: Int { count }

    /// Equal when both hold the same triplet bytes, in the same order.
    public static func == (lhs: GoProValues, rhs: GoProValues) -> Bool {
        lhs.bytes[lhs.start...] == rhs.bytes[rhs.start...]
    }

    /// Hashes the triplet bytes, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes[start...])
    }
}
