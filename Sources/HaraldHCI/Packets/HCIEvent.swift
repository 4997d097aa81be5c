import HaraldCodec

/// An HCI event from the controller, decoded from an event packet's payload
/// (`[event code][parameter length][parameters]`).
///
/// Events the host does not act on are kept as ``other(code:parameters:)``; a known event whose
/// parameters do not fit its format is a ``ByteDecodingError``.
public enum HCIEvent: Hashable, Sendable, ByteDecodable {
    case disconnectionComplete(DisconnectionComplete)
    case commandComplete(CommandComplete)
    case commandStatus(CommandStatus)
    case numberOfCompletedPackets([CompletedPackets])
    case le(LEMetaEvent)
    case encryptionChange(EncryptionChange)
    case encryptionKeyRefreshComplete(EncryptionKeyRefreshComplete)
    case other(code: UInt8, parameters: [UInt8])

    public static let disconnectionCompleteCode: UInt8 = 0x05
    public static let commandCompleteCode: UInt8 = 0x0E
    public static let commandStatusCode: UInt8 = 0x0F
    public static let numberOfCompletedPacketsCode: UInt8 = 0x13
    public static let leMetaCode: UInt8 = 0x3E
    public static let encryptionChangeCode: UInt8 = 0x08
    public static let encryptionChangeV2Code: UInt8 = 0x59
    public static let encryptionKeyRefreshCompleteCode: UInt8 = 0x30

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let code = try reader.read(UInt8.self, field: "eventCode")
        let length = try reader.read(UInt8.self, field: "parameterLength")
        var body = try reader.subReader(count: Int(length), field: "parameters")
        switch code {
        case Self.disconnectionCompleteCode:
            self = .disconnectionComplete(try body.decode(field: "disconnectionComplete"))
        case Self.commandCompleteCode:
            self = .commandComplete(try body.decode(field: "commandComplete"))
        case Self.commandStatusCode:
            self = .commandStatus(try body.decode(field: "commandStatus"))
        case Self.numberOfCompletedPacketsCode:
            let count = try body.read(UInt8.self, field: "numberOfHandles")
            var entries: [CompletedPackets] = []
            for index in 0..<Int(count) {
                entries.append(try body.decode(field: "handles[\(index)]"))
            }
            self = .numberOfCompletedPackets(entries)
        case Self.leMetaCode:
            self = .le(try body.decode(field: "le"))
        case Self.encryptionChangeCode, Self.encryptionChangeV2Code:
            self = .encryptionChange(try EncryptionChange(from: &body, withKeySize: code == Self.encryptionChangeV2Code))
        case Self.encryptionKeyRefreshCompleteCode:
            self = .encryptionKeyRefreshComplete(try body.decode(field: "encryptionKeyRefreshComplete"))
        default:
            self = .other(code: code, parameters: body.readRemainingBytes())
        }
        try body.expectEnd()
    }

    /// Decodes an event packet's payload (the bytes after the H4 indicator).
    public init(packet: HCIPacket) throws(ByteDecodingError) {
        guard packet.type == .event else {
            throw ByteDecodingError(typeName: "HCIEvent", field: "packetType", offset: 0,
                                    reason: .invalidValue("a \(packet.type) packet is not an event"))
        }
        self = try HCIEvent(decoding: packet.payload)
    }
}

/// Disconnection Complete (0x05): a connection ended.
public struct DisconnectionComplete: Hashable, Sendable, ByteDecodable {
    public var status: HCIStatus
    public var handle: UInt16
    /// Why the link ended (an HCI error code, e.g. 0x13 remote user terminated, 0x08 timeout).
    public var reason: HCIStatus

    public init(status: HCIStatus, handle: UInt16, reason: HCIStatus) {
        self.status = status
        self.handle = handle
        self.reason = reason
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        reason = HCIStatus(try reader.read(UInt8.self, field: "reason"))
    }
}

/// Command Complete (0x0E): the controller finished a command and returns its results.
public struct CommandComplete: Hashable, Sendable, ByteDecodable {
    /// How many more commands the controller accepts now (command flow control).
    public var numberOfAllowedCommands: UInt8
    /// The command this completes (0x0000 = only a credit update).
    public var opcode: HCIOpcode
    /// The return parameters; for almost every command the first byte is the status.
    public var returnParameters: [UInt8]

    public init(numberOfAllowedCommands: UInt8, opcode: HCIOpcode, returnParameters: [UInt8]) {
        self.numberOfAllowedCommands = numberOfAllowedCommands
        self.opcode = opcode
        self.returnParameters = returnParameters
    }

    /// The status byte that leads the return parameters (success if there are none).
    public var status: HCIStatus { HCIStatus(returnParameters.first ?? 0) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        numberOfAllowedCommands = try reader.read(UInt8.self, field: "numHCICommandPackets")
        opcode = HCIOpcode(rawValue: try reader.read(UInt16.self, field: "opcode"))
        returnParameters = reader.readRemainingBytes()
    }
}

/// Command Status (0x0F): the controller accepted (or refused) a command that completes later
/// with its own event.
public struct CommandStatus: Hashable, Sendable, ByteDecodable {
    public var status: HCIStatus
    public var numberOfAllowedCommands: UInt8
    public var opcode: HCIOpcode

    public init(status: HCIStatus, numberOfAllowedCommands: UInt8, opcode: HCIOpcode) {
        self.status = status
        self.numberOfAllowedCommands = numberOfAllowedCommands
        self.opcode = opcode
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        status = HCIStatus(try reader.read(UInt8.self, field: "status"))
        numberOfAllowedCommands = try reader.read(UInt8.self, field: "numHCICommandPackets")
        opcode = HCIOpcode(rawValue: try reader.read(UInt16.self, field: "opcode"))
    }
}

/// One entry of Number Of Completed Packets (0x13): ACL packets the controller has sent (or
/// flushed) on a connection, freeing that many of its buffers.
public struct CompletedPackets: Hashable, Sendable, ByteDecodable {
    public var handle: UInt16
    public var count: UInt16

    public init(handle: UInt16, count: UInt16) {
        self.handle = handle
        self.count = count
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        count = try reader.read(UInt16.self, field: "count")
    }
}
