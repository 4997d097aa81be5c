import HaraldCodec
/// An HCI status or error code (Core Vol 1 Part F), as carried by Command Complete, Command Status,
/// connection and disconnection events.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public var isSuccess: Bool { rawValue == 0 }

    public static let success = HCIStatus(0x00)
    public static let unknownCommand = HCIStatus(0x01)
    public static let unknownConnectionIdentifier = HCIStatus(0x02)
    public static let hardwareFailure = HCIStatus(0x03)
    public static let authenticationFailure = HCIStatus(0x05)
    /// The peer has no key for the link (encryption refused: it lost its bond).
    public static let pinOrKeyMissing = HCIStatus(0x06)
    public static let connectionLimitExceeded = HCIStatus(0x09)
    public static let memoryCapacityExceeded = HCIStatus(0x07)
    public static let connectionTimeout = HCIStatus(0x08)
    public static let commandDisallowed = HCIStatus(0x0C)
    public static let invalidParameters = HCIStatus(0x12)
    public static let remoteUserTerminatedConnection = HCIStatus(0x13)
    public static let remoteLowResources = HCIStatus(0x14)
    public static let remotePowerOff = HCIStatus(0x15)
    public static let connectionTerminatedByLocalHost = HCIStatus(0x16)
    public static let unsupportedRemoteFeature = HCIStatus(0x1A)
    public static let unspecifiedError = HCIStatus(0x1F)
    public static let unsupportedParameterValue = HCIStatus(0x20)
    public static let instantPassed = HCIStatus(0x28)
    /// The link dropped because a packet failed its integrity check (the peers' keys differ).
    public static let connectionTerminatedDueToMICFailure = HCIStatus(0x3D)
    public static let controllerBusy = HCIStatus(0x3A)
    public static let unacceptableConnectionParameters = HCIStatus(0x3B)
    public static let connectionFailedToBeEstablished = HCIStatus(0x3E)
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

    public var description: String { "0x\(Hex.byte(rawValue)) (\(Self.names[rawValue] ?? "error"))" }
}
