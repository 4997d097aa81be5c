/// Two upper-case hex digits for a byte (for descriptions and errors).
func hexByte(_ value: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    return String([digits[Int(value >> 4)], digits[Int(value & 0x0F)]])
}

/// Four upper-case hex digits for a 16-bit value, most significant first.
func hexWord(_ value: UInt16) -> String {
    hexByte(UInt8(value >> 8)) + hexByte(UInt8(truncatingIfNeeded: value))
}
