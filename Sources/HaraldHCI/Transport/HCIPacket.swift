import HaraldCodec

/// The kind of an HCI packet, as the H4 packet indicator byte names it.
public enum HCIPacketType: UInt8, Sendable, Hashable, CaseIterable {
    /// Host → controller command.
    case command = 0x01
    /// ACL data, either direction.
    case acl = 0x02
    /// Synchronous (SCO) data; classic audio, never used by an LE host.
    case sco = 0x03
    /// Controller → host event.
    case event = 0x04
    /// Isochronous data (LE Audio).
    case iso = 0x05
}

/// One whole HCI packet as it crosses a transport: its type and the bytes after the H4 indicator.
///
/// Transports deal only in these; ``HCICommand``, ``HCIEvent`` and ``ACLDataPacket`` give them
/// meaning.
public struct HCIPacket: Sendable, Hashable, CustomStringConvertible {
    /// What kind of packet this is.
    public var type: HCIPacketType
    /// The packet without its indicator byte: header then parameters or data.
    public var payload: [UInt8]

    /// A packet of `type` with its payload (without the H4 indicator byte).
    public init(type: HCIPacketType, payload: [UInt8]) {
        self.type = type
        self.payload = payload
    }

    /// The packet as H4 puts it on the wire: indicator byte, then the payload.
    public var h4Bytes: [UInt8] { [type.rawValue] + payload }

    /// The packet type, then the payload as lower-case hex without separators, e.g. `command 030c00`;
    /// key material is replaced by `<redacted N bytes>` (LTKs in LE Enable Encryption and LE Long
    /// Term Key Request Reply, SMP key PDUs in ACL data, and the rest listed at
    /// `HCIPacketRedaction`), e.g. `command 1a20124000 <redacted 16 bytes>` for an LTK reply.
    public var description: String {
        "\(type) \(HCIPacketRedaction.text(payload, visible: HCIPacketRedaction.visiblePayloadCount(of: self)))"
    }
}
