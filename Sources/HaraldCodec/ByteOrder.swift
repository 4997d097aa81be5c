/// The order of bytes of a multi-byte field on the wire.
///
/// Bluetooth SIG characteristics and ATT are little-endian; some device protocols (GoPro's TLV
/// values, for one) are big-endian.
public enum ByteOrder: Sendable, Hashable {
    /// Least significant byte first — the Bluetooth default.
    case littleEndian
    /// Most significant byte first ("network order").
    case bigEndian
}
