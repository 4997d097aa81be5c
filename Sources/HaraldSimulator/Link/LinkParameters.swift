/// One end of a simulated connection.
public enum LinkSide: Hashable, Sendable, CustomStringConvertible {
    /// The device that initiated the connection (the phone, the gateway).
    case central
    /// The device that advertised and accepted it (the strap, the camera).
    case peripheral

    /// The other end.
    public var peer: LinkSide { self == .central ? .peripheral : .central }
    /// `central` or `peripheral`.
    public var description: String { self == .central ? "central" : "peripheral" }
}

/// The radio PHY of a simulated link, which sets the bit rate and preamble length.
public enum LinkPHY: Hashable, Sendable {
    /// LE 1M: 1 Mbit/s, 1-byte preamble.
    case le1M
    /// LE 2M: 2 Mbit/s, 2-byte preamble.
    case le2M

    /// Time to send one bit.
    var bitTime: Duration { self == .le1M ? .nanoseconds(1000) : .nanoseconds(500) }
    var preambleBytes: Int { self == .le1M ? 1 : 2 }
}

/// The timing model of a simulated LE connection.
///
/// Data moves only at connection events, one every ``connectionInterval``. In each event the
/// central and the peripheral exchange up to ``packetsPerEvent`` link-layer packets each, every
/// packet carrying at most ``linkLayerPayload`` bytes (27 without Data Length Extension, up to 251
/// with it). An L2CAP PDU (4-byte header + ATT PDU) is split over as many packets as it needs and
/// is delivered when its last packet has been sent.
///
/// Air time follows the usual model (see protocols.md D.8): a packet takes (preamble + access
/// address 4 + header 2 + payload + CRC 3) × 8 bit times, the peer answers with an empty packet,
/// and each turn-around costs T_IFS = 150 µs.
public struct LinkParameters: Hashable, Sendable {
    /// Time between connection events (7.5 ms … 4 s in the specification).
    public var connectionInterval: Duration
    /// Most packets each side sends in one connection event. Clamped to what fits in the interval.
    public var packetsPerEvent: Int
    /// Largest link-layer payload, 27…251 bytes.
    public var linkLayerPayload: Int
    /// The PHY in use.
    public var phy: LinkPHY
    /// The largest ATT_MTU the simulated device accepts in an MTU exchange (23…517).
    public var maximumATTMTU: Int
    /// Link-layer packets a side may have queued but not yet sent; a sender waits for room
    /// (this is what write-without-response flow control observes).
    public var transmitBufferPackets: Int

    /// Parameters; values outside the specification's ranges are clamped (7.5 ms interval, 27…251-byte payloads, ATT_MTU 23…517).
    public init(
        connectionInterval: Duration = .milliseconds(30),
        packetsPerEvent: Int = 4,
        linkLayerPayload: Int = 27,
        phy: LinkPHY = .le1M,
        maximumATTMTU: Int = 247,
        transmitBufferPackets: Int = 8
    ) {
        self.connectionInterval = max(connectionInterval, .microseconds(7500))
        self.linkLayerPayload = min(max(linkLayerPayload, 27), 251)
        self.phy = phy
        self.maximumATTMTU = min(max(maximumATTMTU, 23), 517)
        self.transmitBufferPackets = max(transmitBufferPackets, 1)
        self.packetsPerEvent = max(packetsPerEvent, 1)
    }

    /// A typical phone connection: 30 ms interval, 4 packets per event, 27-byte packets.
    public static let typical = LinkParameters()

    /// A fast link: 15 ms interval, 6 packets per event, LE 2M with Data Length Extension.
    public static let fast = LinkParameters(
        connectionInterval: .milliseconds(15), packetsPerEvent: 6, linkLayerPayload: 251, phy: .le2M,
        maximumATTMTU: 247, transmitBufferPackets: 12)

    /// On-air time of one packet with `payload` bytes.
    public func airTime(payload: Int) -> Duration {
        phy.bitTime * ((phy.preambleBytes + 4 + 2 + payload + 3) * 8)
    }

    /// One exchange: a full data packet, T_IFS, the peer's empty packet, T_IFS.
    public var exchangeTime: Duration {
        airTime(payload: linkLayerPayload) + .microseconds(150) + airTime(payload: 0) + .microseconds(150)
    }

    /// Packets per event after clamping to what fits in one interval.
    public var effectivePacketsPerEvent: Int {
        let fit = Int(connectionInterval / exchangeTime)
        return max(1, min(packetsPerEvent, fit))
    }

    /// Link-layer packets needed for an L2CAP PDU carrying `sduLength` bytes.
    public func packetCount(sduLength: Int) -> Int {
        let total = sduLength + 4
        return max(1, (total + linkLayerPayload - 1) / linkLayerPayload)
    }

    /// The application throughput the model allows for a stream of ATT PDUs of `attPayload` bytes
    /// each (3-byte ATT header added), in bytes per second.
    public func throughputLimit(attPayload: Int) -> Double {
        let packetsPerPDU = packetCount(sduLength: attPayload + 3)
        let pdusPerSecond =
            Double(effectivePacketsPerEvent) / Double(packetsPerPDU)
            / (Double(connectionInterval.components.seconds) + Double(connectionInterval.components.attoseconds) * 1e-18)
        return pdusPerSecond * Double(attPayload)
    }
}
