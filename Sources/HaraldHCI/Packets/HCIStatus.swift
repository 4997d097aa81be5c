import HaraldCodec
/// An HCI status or error code (Core Vol 1 Part F), as carried by Command Complete, Command Status,
/// connection and disconnection events.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status code byte: 0x00 for success, else the error code.
    public let rawValue: UInt8
    /// The status with this code; any value is accepted, assigned or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// A status from its code.
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// Whether the code is 0x00, Success.
    public var isSuccess: Bool { rawValue == 0 }

    /// 0x00 Success.
    public static let success = HCIStatus(0x00)
    /// 0x01 Unknown HCI Command: the controller does not implement it.
    public static let unknownCommand = HCIStatus(0x01)
    /// 0x02 Unknown Connection Identifier: no connection with that handle.
    public static let unknownConnectionIdentifier = HCIStatus(0x02)
    /// 0x03 Hardware Failure.
    public static let hardwareFailure = HCIStatus(0x03)
    /// 0x05 Authentication Failure: for LE, typically a missing or wrong key.
    public static let authenticationFailure = HCIStatus(0x05)
    /// The peer has no key for the link (encryption refused: it lost its bond).
    public static let pinOrKeyMissing = HCIStatus(0x06)
    /// 0x09 Connection Limit Exceeded.
    public static let connectionLimitExceeded = HCIStatus(0x09)
    /// 0x07 Memory Capacity Exceeded.
    public static let memoryCapacityExceeded = HCIStatus(0x07)
    /// 0x08 Connection Timeout: the supervision timeout passed without a packet from the peer.
    public static let connectionTimeout = HCIStatus(0x08)
    /// 0x0C Command Disallowed: not possible in the controller's current state.
    public static let commandDisallowed = HCIStatus(0x0C)
    /// 0x12 Invalid HCI Command Parameters.
    public static let invalidParameters = HCIStatus(0x12)
    /// 0x13 Remote User Terminated Connection: the peer disconnected.
    public static let remoteUserTerminatedConnection = HCIStatus(0x13)
    /// 0x14 Remote Device Terminated Connection due to Low Resources.
    public static let remoteLowResources = HCIStatus(0x14)
    /// 0x15 Remote Device Terminated Connection due to Power Off.
    public static let remotePowerOff = HCIStatus(0x15)
    /// 0x16 Connection Terminated By Local Host.
    public static let connectionTerminatedByLocalHost = HCIStatus(0x16)
    /// 0x1A Unsupported Remote Feature.
    public static let unsupportedRemoteFeature = HCIStatus(0x1A)
    /// 0x1F Unspecified Error.
    public static let unspecifiedError = HCIStatus(0x1F)
    /// 0x20 Unsupported LMP/LL Parameter Value.
    public static let unsupportedParameterValue = HCIStatus(0x20)
    /// 0x28 Instant Passed: a link-layer procedure's instant was missed.
    public static let instantPassed = HCIStatus(0x28)
    /// The link dropped because a packet failed its integrity check (the peers' keys differ).
    public static let connectionTerminatedDueToMICFailure = HCIStatus(0x3D)
    /// 0x3A Controller Busy.
    public static let controllerBusy = HCIStatus(0x3A)
    /// 0x3B Unacceptable Connection Parameters.
    public static let unacceptableConnectionParameters = HCIStatus(0x3B)
    /// 0x3E Connection Failed to be Established: the peer never answered the connection.
    public static let connectionFailedToBeEstablished = HCIStatus(0x3E)
    /// 0x42 Unknown Advertising Identifier: no advertising set with that handle.
    public static let unknownAdvertisingIdentifier = HCIStatus(0x42)

    private static let names: [UInt8: String] = [
        0x00: "success", 0x01: "unknown HCI command", 0x02: "unknown connection identifier",
        0x03: "hardware failure", 0x05: "authentication failure", 0x06: "PIN or key missing",
        0x07: "memory capacity exceeded", 0x08: "connection timeout", 0x09: "connection limit exceeded",
        0x0C: "command disallowed", 0x0D: "connection rejected (limited resources)",
        0x11: "unsupported feature or parameter value", 0x12: "invalid HCI command parameters",
        0x13: "remote user terminated connection", 0x14: "remote device terminated connection (low resources)",
        0x15: "remote device terminated connection (power off)", 0x16: "connection terminated by local host",
        0x1A: "unsupported remote feature", 0x1F: "unspecified error", 0x20: "unsupported LMP/LL parameter value",
        0x22: "LMP/LL response timeout", 0x28: "instant passed", 0x3A: "controller busy",
        0x3B: "unacceptable connection parameters", 0x3C: "advertising timeout",
        0x3D: "connection terminated due to MIC failure", 0x3E: "connection failed to be established",
        0x42: "unknown advertising identifier",
    ]

    /// The code in hex and the error's name in lower case, e.g. `0x08 (connection timeout)`; plain
    /// `error` for codes Harald does not name.
    public var description: String { "0x\(Hex.byte(rawValue)) (\(Self.names[rawValue] ?? "error"))" }
}
