/// The fixed header's remaining length: 7 bits a byte, least significant group first, the high
/// bit saying that another byte follows; at most four bytes (268,435,455).
enum MQTTRemainingLength {
    /// The largest length four bytes can say.
    static let maximum = 268_435_455

    /// Appends `length` (0...``maximum``) to `bytes`.
    static func encode(_ length: Int, into bytes: inout [UInt8]) throws(MQTTPacketError) {
        guard length >= 0, length <= maximum else { throw .packetTooLarge(declared: length, maximum: maximum) }
        var value = length
        repeat {
            var byte = UInt8(value & 0x7F)
            value >>= 7
            if value > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while value > 0
    }

    /// Reads a length starting at `start`: the value and how many bytes it took, or nil when the
    /// bytes end before the length does.
    static func decode(_ bytes: some RandomAccessCollection<UInt8>, from start: Int) throws(MQTTPacketError) -> (value: Int, size: Int)? {
        var value = 0
        var multiplier = 1
        var offset = 0
        while true {
            guard offset < 4 else { throw .malformedRemainingLength }
            let index = bytes.index(bytes.startIndex, offsetBy: start + offset)
            guard index < bytes.endIndex else { return nil }
            let byte = bytes[index]
            value += Int(byte & 0x7F) * multiplier
            offset += 1
            if byte & 0x80 == 0 { return (value, offset) }
            multiplier *= 128
        }
    }
}
