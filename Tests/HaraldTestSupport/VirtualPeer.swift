import HaraldL2CAP
import HaraldATT
import HaraldCore
import HaraldSMP

/// A peripheral within range of a ``VirtualController``: what it advertises, and the GATT
/// server that answers on every link a central opens to it.
public struct VirtualPeer: Sendable {
    public var address: BluetoothAddress
    /// Sent in ADV_IND reports (connectable undirected advertising), at most 31 bytes.
    public var advertisingData: [UInt8]
    /// Sent in SCAN_RSP reports to an active scan; none when empty.
    public var scanResponseData: [UInt8]
    public var rssi: Int8
    public var server: GATTServer
    /// The Long Term Key the peer holds for the central (a bond), as its LE Long Term Key Request
    /// would answer: LE Enable Encryption with this key succeeds (and the server sees an encrypted
    /// link); with another key the link drops (MIC Failure); with none the peer refuses (PIN or
    /// Key Missing).
    public var longTermKey: SecretKey128?
    /// Whether that bond came from an authenticated pairing (what the server then sees).
    public var longTermKeyIsAuthenticated = false
    /// How the peer pairs as responder (Harald's own ``SMPResponder`` with an automatic agent);
    /// nil: it has no Security Manager and answers Pairing Failed, Pairing Not Supported.
    public var pairing: PairingConfiguration?
    /// When set, the peer sends a Security Request with this AuthReq as soon as a central connects.
    public var securityRequest: AuthReq?
    /// When true the peer's Security Manager never answers (for the SMP timeout).
    public var ignoresSecurityManager = false
    /// SPSMs the peer serves connection-oriented channels on (Harald's own ``CreditBasedChannels``
    /// engine answers the central's signaling); none: every channel request is refused.
    public var channelServers: [CreditBasedChannels.Server] = []
    /// What the peer answers a channel request with; nil accepts.
    public var channelRefusal: CreditBasedConnectionResult?
    /// Whether the peer sends every SDU it receives back on the same channel.
    public var echoesChannelSDUs = true

    public init(address: BluetoothAddress, advertisingData: [UInt8], scanResponseData: [UInt8] = [], rssi: Int8 = -50, server: GATTServer) {
        self.address = address
        self.advertisingData = advertisingData
        self.scanResponseData = scanResponseData
        self.rssi = rssi
        self.server = server
    }
}
