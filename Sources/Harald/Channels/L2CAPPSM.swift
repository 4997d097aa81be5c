import HaraldCodec

/// An LE protocol/service multiplexer (SPSM): the number a connection-oriented L2CAP channel is
/// opened on, as a TCP port names a service (Core spec Vol 3 Part A §4.22). 0x0001–0x007F are
/// assigned by the Bluetooth SIG (0x0025 Object Transfer, 0x0027 Enhanced ATT), 0x0080–0x00FF are
/// for apps and devices. CoreBluetooth picks the PSM of a channel an app publishes, and apps find it
/// in the peer's ``appleChannelPSM`` characteristic.
public struct L2CAPPSM: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The 16-bit value (0x0001–0x00FF on LE).
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { rawValue = value }
    public init(_ value: UInt16) { rawValue = value }

    /// Object Transfer Service (0x0025).
    public static let objectTransfer = L2CAPPSM(0x0025)
    /// Enhanced ATT (0x0027).
    public static let enhancedATT = L2CAPPSM(0x0027)
    /// The PSMs an app or device may choose (0x0080–0x00FF).
    public static let dynamicRange: ClosedRange<L2CAPPSM> = L2CAPPSM(0x0080)...L2CAPPSM(0x00FF)

    /// Whether an LE credit-based channel may be opened on it (0x0001–0x00FF).
    public var isValidOnLE: Bool { (0x0001...0x00FF).contains(rawValue) }

    /// The characteristic whose value is the PSM of a channel a peripheral publishes, as a
    /// little-endian 16-bit number: Apple's convention for finding a CoreBluetooth peripheral's
    /// system-assigned PSM (`ABDD3056-28FA-441D-A470-55A75A52553A`).
    public static let appleChannelPSM: BluetoothUUID = "ABDD3056-28FA-441D-A470-55A75A52553A"

    public static func < (lhs: L2CAPPSM, rhs: L2CAPPSM) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `PSM 0x0080`.
    public var description: String { "PSM 0x\(Hex.word(rawValue))" }
}

/// The flow control mode a channel is opened in.
public enum L2CAPChannelMode: Hashable, Sendable {
    /// LE Credit Based Flow Control Mode (Bluetooth 4.1): what every LE device with channels
    /// supports, and the only mode CoreBluetooth opens.
    case leCreditBased
    /// Enhanced Credit Based Flow Control Mode (Bluetooth 5.2): MTU and MPS of at least 64 bytes.
    case enhancedCreditBased
}

/// How a channel is opened or served: the mode, and what this end takes.
public struct L2CAPChannelOptions: Hashable, Sendable {
    /// The flow control mode (LE credit-based by default).
    public var mode: L2CAPChannelMode
    /// Largest SDU this end takes, in bytes (23…65,535; 64 or more in enhanced mode).
    public var mtu: Int
    /// Largest K-frame payload this end takes, in bytes. 247 fills one link-layer packet of a link
    /// with Data Length Extension.
    public var mps: Int
    /// Bytes of received data the channel holds for its reader before the peer must wait: the
    /// credits this end gives the peer come from this room, so a reader that stops holds the peer
    /// at this much, and a larger room keeps a fast link busy.
    public var receiveBuffer: Int

    public init(mode: L2CAPChannelMode = .leCreditBased, mtu: Int = 2048, mps: Int = 247, receiveBuffer: Int = 64 * 1024) {
        (self.mode, self.mtu, self.mps, self.receiveBuffer) = (mode, mtu, mps, receiveBuffer)
    }
}

/// Why a peer refused to open a channel: the result code of its L2CAP connection response
/// (Core spec Vol 3 Part A §4.23, §4.26).
public struct L2CAPChannelRefusal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The result code.
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Nothing is served on the PSM (0x0002).
    public static let psmNotSupported = Self(rawValue: 0x0002)
    /// The peer has no room for another channel (0x0004).
    public static let noResourcesAvailable = Self(rawValue: 0x0004)
    /// The PSM needs an authenticated (or any) pairing first (0x0005).
    public static let insufficientAuthentication = Self(rawValue: 0x0005)
    /// The peer's app did not allow it (0x0006).
    public static let insufficientAuthorization = Self(rawValue: 0x0006)
    /// The link's key is shorter than the PSM needs (0x0007).
    public static let insufficientEncryptionKeySize = Self(rawValue: 0x0007)
    /// The PSM needs an encrypted link (0x0008).
    public static let insufficientEncryption = Self(rawValue: 0x0008)
    /// The peer found our channel identifier invalid or taken (0x0009, 0x000A).
    public static let invalidSourceCID = Self(rawValue: 0x0009)
    public static let sourceCIDAlreadyAllocated = Self(rawValue: 0x000A)
    /// The MTU or MPS asked for is not acceptable (0x000B; 0x000C in enhanced mode).
    public static let unacceptableParameters = Self(rawValue: 0x000B)
    public static let invalidParameters = Self(rawValue: 0x000C)

    /// The refusal a channel server answers with when the link falls short of the security a PSM
    /// needs, from the ATT error a GATT server gives for the same shortfall (Insufficient
    /// Authentication, Insufficient Encryption, Encryption Key Size Too Short).
    public init(securityShortfall code: ATTErrorCode) {
        switch code {
        case .insufficientEncryption: self = .insufficientEncryption
        case .encryptionKeySizeTooShort: self = .insufficientEncryptionKeySize
        default: self = .insufficientAuthentication
        }
    }

    /// True for the refusals that pairing or encrypting the link answers.
    public var requiresPairing: Bool { [0x0005, 0x0007, 0x0008].contains(rawValue) }

    /// The refusal in words, e.g. `PSM not supported (0x0002)`.
    public var description: String {
        let name =
            switch rawValue {
            case 0x0002: "PSM not supported"
            case 0x0004: "no resources available"
            case 0x0005: "insufficient authentication"
            case 0x0006: "insufficient authorization"
            case 0x0007: "insufficient encryption key size"
            case 0x0008: "insufficient encryption"
            case 0x0009: "invalid source CID"
            case 0x000A: "source CID already allocated"
            case 0x000B: "unacceptable parameters"
            case 0x000C: "invalid parameters"
            default: "refused"
            }
        return "\(name) (0x\(Hex.word(rawValue)))"
    }
}

/// Why a channel ended.
public enum L2CAPChannelCloseReason: Hashable, Sendable, CustomStringConvertible {
    /// This end closed it.
    case localRequest
    /// The peer closed it.
    case remoteRequest
    /// The LE link went down.
    case linkLost
    /// The peer broke the channel's rules (data over the MTU or MPS, data without credit, credits
    /// past 65,535), and this end closed it.
    case protocolViolation(String)

    /// The reason in words.
    public var description: String {
        switch self {
        case .localRequest: "closed by this device"
        case .remoteRequest: "closed by the peer"
        case .linkLost: "the link was lost"
        case let .protocolViolation(detail): "the peer broke the channel's rules: \(detail)"
        }
    }
}
