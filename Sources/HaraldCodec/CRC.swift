/// A 16-bit cyclic redundancy check with the usual Rocksoft parameters.
///
/// Medical and fitness devices commonly protect records with CRC-16/MCRF4XX (the "E2E" CRC of
/// the SIG's Continuous Glucose Monitoring profile) or CRC-16/CCITT-FALSE.
public struct CRC16: Sendable {
    /// CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final XOR. Check 0x29B1.
    public static let ccittFalse = CRC16(polynomial: 0x1021, initial: 0xFFFF, reflected: false, finalXOR: 0)
    /// CRC-16/MCRF4XX: poly 0x1021, init 0xFFFF, reflected, no final XOR. Check 0x6F91.
    public static let mcrf4xx = CRC16(polynomial: 0x1021, initial: 0xFFFF, reflected: true, finalXOR: 0)

    /// The generator polynomial, without its x^16 term.
    public let polynomial: UInt16
    /// The register's value before the first byte.
    public let initial: UInt16
    /// Whether input bytes and the result are bit-reflected (LSB-first algorithms).
    public let reflected: Bool
    /// What the register is XORed with at the end.
    public let finalXOR: UInt16
    private let table: [UInt16]

    /// A CRC-16 variant from its parameters (as in the CRC catalogue).
    public init(polynomial: UInt16, initial: UInt16, reflected: Bool, finalXOR: UInt16) {
        self.polynomial = polynomial
        self.initial = initial
        self.reflected = reflected
        self.finalXOR = finalXOR
        let reversedPolynomial = polynomial.bitReversed
        table = (0..<256).map { index in
            var crc: UInt16
            if reflected {
                crc = UInt16(index)
                for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ reversedPolynomial : crc >> 1 }
            } else {
                crc = UInt16(index) << 8
                for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ polynomial : crc << 1 }
            }
            return crc
        }
    }

    /// The checksum of `bytes`.
    public func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt16 {
        var crc = reflected ? initial.bitReversed : initial
        for byte in bytes {
            if reflected {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt16(byte)) & 0xFF)]
            } else {
                crc = (crc << 8) ^ table[Int(((crc >> 8) ^ UInt16(byte)) & 0xFF)]
            }
        }
        return crc ^ finalXOR
    }
}

/// A 32-bit cyclic redundancy check.
public struct CRC32: Sendable {
    /// CRC-32 (IEEE 802.3, zlib, PNG): poly 0x04C11DB7 reflected, init and final XOR 0xFFFFFFFF.
    /// Check 0xCBF43926.
    public static let ieee = CRC32(reflectedPolynomial: 0xEDB8_8320, initial: 0xFFFF_FFFF, finalXOR: 0xFFFF_FFFF)

    /// The generator polynomial, bit-reversed (0xEDB88320 for the common CRC-32).
    public let reflectedPolynomial: UInt32
    /// The register's value before the first byte.
    public let initial: UInt32
    /// What the register is XORed with at the end.
    public let finalXOR: UInt32
    private let table: [UInt32]

    /// A reflected (LSB-first) CRC-32 with the given bit-reversed polynomial.
    public init(reflectedPolynomial: UInt32, initial: UInt32, finalXOR: UInt32) {
        self.reflectedPolynomial = reflectedPolynomial
        self.initial = initial
        self.finalXOR = finalXOR
        table = (0..<256).map { index in
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ reflectedPolynomial : crc >> 1 }
            return crc
        }
    }

    /// The checksum of `bytes`.
    public func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc = initial
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return crc ^ finalXOR
    }
}

extension UInt16 {
    @usableFromInline
    var bitReversed: UInt16 {
        var value = self, result: UInt16 = 0
        for _ in 0..<16 { result = result << 1 | value & 1; value >>= 1 }
        return result
    }
}
