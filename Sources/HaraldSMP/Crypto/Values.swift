import HaraldCodec

/// A 128-bit value SMP sends in the clear (a nonce, a confirm or check value, a salt), held
/// most significant octet first as the spec writes it. See ``SMPCrypto`` for the byte order.
public struct Value128: Hashable, Sendable, CustomStringConvertible {
    /// The 16 octets, most significant first (the spec's order).
    public let bigEndianBytes: [UInt8]

    /// A value from 16 octets, most significant first; nil for any other length.
    public init?(bigEndianBytes bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        bigEndianBytes = bytes
    }

    /// A value from 16 octets as SMP carries them, least significant first; nil for any other length.
    public init?(littleEndianBytes bytes: [UInt8]) {
        self.init(bigEndianBytes: bytes.reversed())
    }

    /// The 16 octets, least significant first (the wire order).
    public var littleEndianBytes: [UInt8] { bigEndianBytes.reversed() }

    /// Zero, the 128-bit value of all-zero octets.
    public static let zero = Value128(unchecked: [UInt8](repeating: 0, count: 16))

    /// A value of 16 octets from `generator` (a nonce: use a cryptographically secure generator).
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> Value128 {
        Value128(unchecked: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A fresh nonce from the system's cryptographically secure generator.
    public static func random() -> Value128 {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    init(unchecked bytes: [UInt8]) { bigEndianBytes = bytes }

    /// The value in hex, most significant octet first (it is not secret).
    public var description: String { Hex.encode(bigEndianBytes) }
}

/// A 256-bit value SMP sends in the clear (a P-256 coordinate), held most significant octet
/// first as the spec writes it. See ``SMPCrypto`` for the byte order.
public struct Value256: Hashable, Sendable, CustomStringConvertible {
    /// The 32 octets, most significant first (the spec's order).
    public let bigEndianBytes: [UInt8]

    /// A value from 32 octets, most significant first; nil for any other length.
    public init?(bigEndianBytes bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        bigEndianBytes = bytes
    }

    /// A value from 32 octets as SMP carries them, least significant first; nil for any other length.
    public init?(littleEndianBytes bytes: [UInt8]) {
        self.init(bigEndianBytes: bytes.reversed())
    }

    /// The 32 octets, least significant first (the wire order).
    public var littleEndianBytes: [UInt8] { bigEndianBytes.reversed() }

    init(unchecked bytes: [UInt8]) { bigEndianBytes = bytes }

    /// The value in hex, most significant octet first (it is not secret).
    public var description: String { Hex.encode(bigEndianBytes) }
}
