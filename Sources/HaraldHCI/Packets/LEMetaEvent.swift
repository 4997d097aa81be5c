import HaraldCodec
import HaraldCore

/// An LE Meta event (0x3E): the first parameter byte names the LE subevent.
public enum LEMetaEvent: Hashable, Sendable, ByteDecodable {
    /// LE Connection Complete (0x01) or Enhanced Connection Complete (0x0A, v2 0x29).
    case connectionComplete(LEConnectionComplete)
    /// LE Advertising Report (0x02), legacy PDUs.
    case advertisingReport([LEAdvertisingReport])
    /// LE Connection Update Complete (0x03): new connection parameters are in force.
    case connectionUpdateComplete(LEConnectionUpdateComplete)
    /// LE Read Remote Features Complete (0x04): the peer's LE features.
    case readRemoteFeaturesComplete(LEReadRemoteFeaturesComplete)
    /// LE Data Length Change (0x07): new link-layer payload sizes.
    case dataLengthChange(LEDataLengthChange)
    /// LE PHY Update Complete (0x0C): the link changed PHY.
    case phyUpdateComplete(LEPHYUpdateComplete)
    /// LE Extended Advertising Report (0x0D).
    case extendedAdvertisingReport([LEExtendedAdvertisingReport])
    /// The central asks for the LTK of the link we are peripheral of (subevent 0x05).
    case longTermKeyRequest(LELongTermKeyRequest)
    /// A subevent the host does not decode, kept whole.
    case other(subevent: UInt8, parameters: [UInt8])

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let subevent = try reader.read(UInt8.self, field: "subevent")
        switch subevent {
        case 0x01:
            self = .connectionComplete(try LEConnectionComplete(from: &reader, enhanced: false))
        case 0x0A, 0x29:
            self = .connectionComplete(try LEConnectionComplete(from: &reader, enhanced: true))
            if subevent == 0x29 {
                try reader.skip(3, field: "advertisingHandle/syncHandle")
            }
        case 0x02:
            let count = try reader.read(UInt8.self, field: "numReports")
            var reports: [LEAdvertisingReport] = []
            for index in 0..<Int(count) { reports.append(try reader.decode(field: "reports[\(index)]")) }
            self = .advertisingReport(reports)
        case 0x03:
            self = .connectionUpdateComplete(try reader.decode(field: "connectionUpdateComplete"))
        case 0x04:
            self = .readRemoteFeaturesComplete(try reader.decode(field: "readRemoteFeaturesComplete"))
        case 0x05:
            self = .longTermKeyRequest(try reader.decode(field: "longTermKeyRequest"))
        case 0x07:
            self = .dataLengthChange(try reader.decode(field: "dataLengthChange"))
        case 0x0C:
            self = .phyUpdateComplete(try reader.decode(field: "phyUpdateComplete"))
        case 0x0D:
            let count = try reader.read(UInt8.self, field: "numReports")
            var reports: [LEExtendedAdvertisingReport] = []
            for index in 0..<Int(count) { reports.append(try reader.decode(field: "reports[\(index)]")) }
            self = .extendedAdvertisingReport(reports)
        default:
            self = .other(subevent: subevent, parameters: reader.readRemainingBytes())
        }
    }
}

/// Which side of the link this host is.
public enum LERole: UInt8, Hashable, Sendable {
    /// This device is the central of the connection (it initiated it).
    case central = 0x00
    /// This device is the peripheral (it was advertising).
    case peripheral = 0x01
}

/// A new LE connection (or a failed attempt: then only `status` is meaningful).
public struct LEConnectionComplete: Hashable, Sendable {
    /// Success, or why the connection failed.
    public var status: HCIStatus
    /// The connection handle for every later command and ACL packet (12 bits).
    public var handle: UInt16
    /// This device's role on the new link.
    public var role: LERole
    /// The peer's address as used on this connection.
    public var peer: BluetoothAddress
    /// Connection interval in units of 1.25 ms.
    public var interval: UInt16
    /// Peripheral latency in connection events.
    public var latency: UInt16
    /// Supervision timeout in units of 10 ms.
    public var supervisionTimeout: UInt16

    /// An event from its fields: interval in units of 1.25 ms, latency in events, timeout in units of 10 ms.
    public init(
        status: HCIStatus, handle: UInt16, role: LERole, peer: BluetoothAddress, interval: UInt16, latency: UInt16,
        supervisionTimeout: UInt16
    ) {
        self.status = status
        self.handle = handle
        self.role = role
        self.peer = peer
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    init(from reader: inout ByteReader, enhanced: Bool) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        let roleStart = reader.offset
        let rawRole = try reader.read(UInt8.self, field: "role")
        // A failed connection may carry any role byte; only a success must name a real role.
        guard let role = LERole(rawValue: rawRole) ?? (status.isSuccess ? nil : .central) else {
            throw reader.invalidValue("unknown role 0x\(Hex.byte(rawRole))", field: "role", at: roleStart)
        }
        self.role = role
        let typeStart = reader.offset
        let rawType = try reader.read(UInt8.self, field: "peerAddressType")
        let type = LEAddressType(rawValue: rawType) ?? (status.isSuccess ? nil : .public)
        guard let type else {
            throw reader.invalidValue("unknown address type 0x\(Hex.byte(rawType))", field: "peerAddressType", at: typeStart)
        }
        peer = try BluetoothAddress(from: &reader, kind: type.kind, field: "peerAddress")
        if enhanced {
            try reader.skip(12, field: "localResolvablePrivateAddress/peerResolvablePrivateAddress")
        }
        interval = try reader.read(UInt16.self, field: "connectionInterval")
        latency = try reader.read(UInt16.self, field: "peripheralLatency")
        supervisionTimeout = try reader.read(UInt16.self, field: "supervisionTimeout")
        try reader.skip(1, field: "centralClockAccuracy")
    }
}

/// LE Connection Update Complete: the connection parameters now in force.
public struct LEConnectionUpdateComplete: Hashable, Sendable, ByteDecodable {
    /// Success, or why the update failed.
    public var status: HCIStatus
    /// The connection handle.
    public var handle: UInt16
    /// Units of 1.25 ms.
    public var interval: UInt16
    /// Peripheral latency: connection events the peripheral may skip.
    public var latency: UInt16
    /// Units of 10 ms.
    public var supervisionTimeout: UInt16

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        interval = try reader.read(UInt16.self, field: "connectionInterval")
        latency = try reader.read(UInt16.self, field: "peripheralLatency")
        supervisionTimeout = try reader.read(UInt16.self, field: "supervisionTimeout")
    }
}

/// LE Read Remote Features Complete: the peer's LE feature bits.
public struct LEReadRemoteFeaturesComplete: Hashable, Sendable, ByteDecodable {
    /// Success, or why the features could not be read.
    public var status: HCIStatus
    /// The connection handle.
    public var handle: UInt16
    /// The peer's LE feature bits (bit 5 = data length extension, bit 8 = 2M PHY, …).
    public var features: UInt64

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        features = try reader.read(UInt64.self, field: "leFeatures")
    }
}

/// The link layer's payload size changed (Data Length Extension).
public struct LEDataLengthChange: Hashable, Sendable, ByteDecodable {
    /// The connection handle.
    public var handle: UInt16
    /// Largest LL payload in bytes (27…251) and its air time in µs, each direction.
    public var maxTxOctets: UInt16
    /// Longest time this side transmits one packet, in µs.
    public var maxTxTime: UInt16
    /// Largest link-layer payload the peer sends, in bytes.
    public var maxRxOctets: UInt16
    /// Longest time the peer transmits one packet, in µs.
    public var maxRxTime: UInt16

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        maxTxOctets = try reader.read(UInt16.self, field: "maxTxOctets")
        maxTxTime = try reader.read(UInt16.self, field: "maxTxTime")
        maxRxOctets = try reader.read(UInt16.self, field: "maxRxOctets")
        maxRxTime = try reader.read(UInt16.self, field: "maxRxTime")
    }
}

/// The PHY of a connection changed (1 = LE 1M, 2 = LE 2M, 3 = LE Coded).
public struct LEPHYUpdateComplete: Hashable, Sendable, ByteDecodable {
    /// Success, or why the PHY update failed.
    public var status: HCIStatus
    /// The connection handle.
    public var handle: UInt16
    /// The PHY this side now sends on.
    public var txPHY: UInt8
    /// The PHY this side now receives on.
    public var rxPHY: UInt8

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        txPHY = try reader.read(UInt8.self, field: "txPHY")
        rxPHY = try reader.read(UInt8.self, field: "rxPHY")
    }
}
