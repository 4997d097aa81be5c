/// LE signaling channel (CID 0x0005) commands: `[code][identifier][length u16][data]`.
public enum LESignalingCode {
    /// L2CAP_COMMAND_REJECT_RSP (Core spec Vol 3 Part A §4.1).
    public static let commandReject: UInt8 = 0x01
    /// L2CAP_DISCONNECTION_REQ: close a credit-based channel.
    public static let disconnectionRequest: UInt8 = 0x06
    /// L2CAP_DISCONNECTION_RSP.
    public static let disconnectionResponse: UInt8 = 0x07
    /// L2CAP_CONNECTION_PARAMETER_UPDATE_REQ: a peripheral asks the central for other connection parameters.
    public static let connectionParameterUpdateRequest: UInt8 = 0x12
    /// L2CAP_CONNECTION_PARAMETER_UPDATE_RSP: 0 accepted, 1 rejected.
    public static let connectionParameterUpdateResponse: UInt8 = 0x13
    /// L2CAP_LE_CREDIT_BASED_CONNECTION_REQ: open a connection-oriented channel.
    public static let leCreditBasedConnectionRequest: UInt8 = 0x14
    /// L2CAP_LE_CREDIT_BASED_CONNECTION_RSP.
    public static let leCreditBasedConnectionResponse: UInt8 = 0x15
    /// L2CAP_FLOW_CONTROL_CREDIT_IND: more credits for a credit-based channel.
    public static let flowControlCredit: UInt8 = 0x16
    /// L2CAP_CREDIT_BASED_CONNECTION_REQ: open up to five Enhanced Credit Based channels at once.
    public static let creditBasedConnectionRequest: UInt8 = 0x17
    /// L2CAP_CREDIT_BASED_CONNECTION_RSP.
    public static let creditBasedConnectionResponse: UInt8 = 0x18
    /// L2CAP_CREDIT_BASED_RECONFIGURE_REQ: new MTU and MPS for Enhanced Credit Based channels.
    public static let creditBasedReconfigureRequest: UInt8 = 0x19
    /// L2CAP_CREDIT_BASED_RECONFIGURE_RSP.
    public static let creditBasedReconfigureResponse: UInt8 = 0x1A

    /// Codes that answer a request: never rejected, or two hosts could reject each other forever.
    package static let responses: Set<UInt8> = [0x01, 0x03, 0x05, 0x07, 0x0B, 0x13, 0x15, 0x16, 0x18, 0x1A]
}
