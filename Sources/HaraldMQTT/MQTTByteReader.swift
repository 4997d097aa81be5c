/// Reads the fields of one packet's body (after the fixed header); every read checks its bounds.
struct MQTTByteReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var isAtEnd: Bool { index >= bytes.endIndex }
    var remainingCount: Int { bytes.endIndex - index }

    mutating func byte() throws(MQTTPacketError) -> UInt8 {
        guard index < bytes.endIndex else { throw .truncated }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() throws(MQTTPacketError) -> UInt16 {
        let high = try byte()
        let low = try byte()
        return UInt16(high) << 8 | UInt16(low)
    }

    /// A packet identifier, which the spec requires to be non-zero.
    mutating func packetIdentifier() throws(MQTTPacketError) -> UInt16 {
        let identifier = try uint16()
        guard identifier != 0 else { throw .zeroPacketIdentifier }
        return identifier
    }

    /// Binary data with a two-byte length prefix.
    mutating func binary() throws(MQTTPacketError) -> [UInt8] {
        let count = Int(try uint16())
        guard remainingCount >= count else { throw .truncated }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// A UTF-8 string with a two-byte length prefix (U+0000 is not allowed).
    mutating func string() throws(MQTTPacketError) -> String {
        let raw = try binary()
        // Decoding replaces an ill-formed sequence with U+FFFD, so a string whose bytes differ
        // from what was read was not valid UTF-8.
        let string = String(decoding: raw, as: UTF8.self)
        guard !raw.contains(0), string.utf8.elementsEqual(raw) else { throw .invalidUTF8 }
        return string
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { index = bytes.endIndex }
        return Array(bytes[index...])
    }

    func expectEnd() throws(MQTTPacketError) {
        guard isAtEnd else { throw .trailingBytes }
    }
}

/// Appends the fields of one packet's body.
struct MQTTByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    mutating func binary(_ value: [UInt8]) throws(MQTTPacketError) {
        guard value.count <= Int(UInt16.max) else { throw .fieldTooLong(value.count) }
        uint16(UInt16(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) throws(MQTTPacketError) {
        let raw = Array(value.utf8)
        guard !raw.contains(0) else { throw .invalidUTF8 }
        try binary(raw)
    }
}
