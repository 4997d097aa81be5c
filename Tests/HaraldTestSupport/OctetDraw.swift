import HaraldCodec

/// Hands out the octets of a generated array one at a time, wrapping around, so a property test
/// builds every field of a value from one generated input (the property library shrinks that one
/// array). An empty array hands out zeros.
public struct OctetDraw {
    public var octets: [UInt8]
    public var index = 0

    public init(octets: [UInt8]) { self.octets = octets }

    /// The next octet.
    public mutating func byte() -> UInt8 {
        defer { index += 1 }
        return octets.isEmpty ? 0 : octets[index % octets.count]
    }

    /// The next `count` octets.
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

    /// The next two octets, little-endian.
    public mutating func word() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    /// An integer of `type` from the next octets, little-endian.
    public mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T {
        bytes(MemoryLayout<T>.size).reversed().reduce(T.zero) { $0 << 8 | T($1) }
    }

    /// A count in 0 ..< `limit`.
    public mutating func count(below limit: Int) -> Int { Int(byte()) % limit }

    /// Between 0 and `limit` octets.
    public mutating func value(upTo limit: Int) -> [UInt8] { bytes(count(below: limit + 1)) }

    /// A 16-bit UUID, or a 128-bit one when `wide`.
    public mutating func uuid(wide: Bool) -> BluetoothUUID {
        if !wide { return BluetoothUUID(word()) }
        let high = bytes(8).reduce(UInt64.zero) { $0 << 8 | UInt64($1) }
        let low = bytes(8).reduce(UInt64.zero) { $0 << 8 | UInt64($1) }
        return BluetoothUUID(high: high, low: low)
    }

    /// A 16- or 128-bit UUID, the width drawn too.
    public mutating func uuid() -> BluetoothUUID { uuid(wide: byte() & 1 == 1) }
}
