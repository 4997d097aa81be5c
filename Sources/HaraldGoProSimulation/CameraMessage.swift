import HaraldCodec

/// A message the camera notifies on one of its response characteristics.
struct CameraMessage: Sendable {
    /// The response characteristic (GP-0073, GP-0075 or GP-0077).
    var characteristic: BluetoothUUID
    var bytes: [UInt8]
    var fault: ActionCameraFault.Action?
    /// How long the sender waits before the first packet.
    var delay: Duration = .zero

    /// The packets that carry it (``CameraPacketFraming/packets(for:)``), spoiled as `fault` says.
    var packets: [[UInt8]] {
        var packets = CameraPacketFraming.packets(for: bytes)
        switch fault {
        case .loseStartPacket?: packets = packets.count > 1 ? Array(packets.dropFirst()) : packets.map { [0x80] + $0.dropFirst() }
        case .loseLastPacket?: packets.removeLast()
        case .corruptHeaderMidMessage? where packets.count > 1: packets[1][0] = 0x60
        default: break
        }
        return packets
    }
}
