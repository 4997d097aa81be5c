import HaraldCore
/// What the host learned about its controller during set-up.
public struct ControllerInfo: Sendable, Hashable {
    /// The controller's public address (00:00:00:00:00:00 on controllers without one).
    public var publicAddress: BluetoothAddress
    /// The static random address the host set and uses as its own address.
    public var randomAddress: BluetoothAddress
    /// LE feature bits (LE Read Local Supported Features).
    public var leFeatures: UInt64
    /// LMP feature bits (Read Local Supported Features); 0 if the controller did not answer.
    public var lmpFeatures: UInt64
    /// The Supported Commands bitmap (64 octets); empty if the controller did not answer.
    public var supportedCommands: [UInt8]
    /// Largest ACL data payload the controller accepts from the host, in bytes.
    public var aclDataLength: Int
    /// How many ACL packets the controller can buffer from the host.
    public var aclPacketCount: Int
    /// Longest link-layer payload the controller can send, in bytes (LE Read Maximum Data Length):
    /// 27 without Data Length Extension; 251 assumed when the controller has the feature but does
    /// not say.
    public var supportedMaxTxOctets = 27

    /// What the controller reported during set-up.
    public init(
        publicAddress: BluetoothAddress, randomAddress: BluetoothAddress, leFeatures: UInt64, lmpFeatures: UInt64,
        supportedCommands: [UInt8], aclDataLength: Int, aclPacketCount: Int
    ) {
        self.publicAddress = publicAddress
        self.randomAddress = randomAddress
        self.leFeatures = leFeatures
        self.lmpFeatures = lmpFeatures
        self.supportedCommands = supportedCommands
        self.aclDataLength = aclDataLength
        self.aclPacketCount = aclPacketCount
    }

    /// LE feature bit numbers (Core Vol 6 Part B 4.6).
    public enum LEFeature: Int, Sendable {
        /// LE Encryption (bit 0): the controller can encrypt links (needed for pairing).
        case encryption = 0
        /// Connection Parameters Request procedure (bit 1).
        case connectionParametersRequest = 1
        /// LE Data Packet Length Extension (bit 5): link-layer payloads up to 251 bytes.
        case dataLengthExtension = 5
        /// LL Privacy (bit 6): the controller resolves private addresses itself.
        case privacy = 6
        /// LE 2M PHY (bit 8): 2 Mbit/s symbol rate.
        case le2MPHY = 8
        /// LE Coded PHY (bit 11): long range at 125 or 500 kbit/s.
        case leCodedPHY = 11
        /// LE Extended Advertising (bit 12): advertising sets and data beyond 31 octets.
        case extendedAdvertising = 12
    }

    /// Whether the controller reported `feature` in its LE supported features.
    public func supports(_ feature: LEFeature) -> Bool { leFeatures >> UInt64(feature.rawValue) & 1 == 1 }

    /// True when asking for longer link-layer packets can change anything: the controller has Data
    /// Length Extension and can send more than the 27 bytes every link starts with.
    public var canExtendDataLength: Bool { supports(.dataLengthExtension) && supportedMaxTxOctets > 27 }

    /// True when the Supported Commands bitmap has `bit` of `octet` set.
    public func supportsCommand(octet: Int, bit: Int) -> Bool {
        supportedCommands.indices.contains(octet) && supportedCommands[octet] >> UInt8(bit) & 1 == 1
    }
}
