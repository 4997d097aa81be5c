/// Why bytes could not be read as an MQTT 3.1.1 packet, or a packet could not be written.
///
/// Every malformed input ends in one of these; no input traps.
public enum MQTTPacketError: Error, Equatable, Sendable {
    /// The packet ended before a field it declares (a length, a string, a packet identifier).
    case truncated
    /// The remaining-length field ran past its four bytes (the spec's maximum).
    case malformedRemainingLength
    /// A packet declares more bytes than the decoder accepts (both in bytes).
    case packetTooLarge(declared: Int, maximum: Int)
    /// The packet type in the first byte's high nibble is 0, 15 or otherwise not MQTT 3.1.1.
    case unknownPacketType(UInt8)
    /// A QoS 2 packet (PUBREC, PUBREL, PUBCOMP) or QoS 2 PUBLISH: this client speaks QoS 0 and 1.
    case unsupportedPacketType(UInt8)
    /// The fixed header's flag nibble is not the one the spec fixes for this packet type.
    case invalidFlags(packetType: UInt8, flags: UInt8)
    /// A QoS field holds 3 (reserved), or 2 where only 0 and 1 are spoken.
    case invalidQoS(UInt8)
    /// A string is not valid UTF-8, or holds U+0000.
    case invalidUTF8
    /// A string or binary field longer than the 65,535 bytes its two-byte length can say.
    case fieldTooLong(Int)
    /// CONNECT names a protocol other than "MQTT" level 4 (3.1.1).
    case unsupportedProtocol(name: String, level: UInt8)
    /// CONNECT's flags break a rule: reserved bit set, will fields without the will flag,
    /// a password without a user name.
    case invalidConnectFlags(UInt8)
    /// CONNACK carries a return code above 5, or reserved acknowledge flags.
    case invalidConnectReturnCode(UInt8)
    /// SUBACK carries a return code other than 0, 1, 2 or 0x80.
    case invalidSubscribeReturnCode(UInt8)
    /// A packet identifier of 0 where the spec requires a non-zero one.
    case zeroPacketIdentifier
    /// SUBSCRIBE or UNSUBSCRIBE with no topic filter, or SUBACK with no return code.
    case emptyTopicList
    /// A PUBLISH topic holds a wildcard (`+` or `#`) or is empty.
    case invalidTopicName
    /// A packet with a fixed length carries bytes past its end.
    case trailingBytes
}
