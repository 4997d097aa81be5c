import HaraldCodec

/// An HCI event from the controller, decoded from an event packet's payload
/// (`[event code][parameter length][parameters]`).
///
/// Events the host does not act on are kept as ``other(code:parameters:)``; a known event whose
/// parameters do not fit its format is a `ByteDecodingError`.
public enum HCIEvent: Hashable, Sendable, ByteDecodable {
    /// Disconnection Complete (0x05): a link ended.
    case disconnectionComplete(DisconnectionComplete)
    /// Command Complete (0x0E): a command finished, with its return parameters.
    case commandComplete(CommandComplete)
    /// Command Status (0x0F): a command was accepted (or refused) and runs on.
    case commandStatus(CommandStatus)
    /// Number Of Completed Packets (0x13): ACL buffers the controller freed, per connection.
    case numberOfCompletedPackets([CompletedPackets])
    /// LE Meta event (0x3E): one of the LE subevents.
    case le(LEMetaEvent)
    /// Encryption Change (0x08, or v2 0x59): a link's encryption turned on or off.
    case encryptionChange(EncryptionChange)
    /// Encryption Key Refresh Complete (0x30): a link was re-encrypted with a new key.
    case encryptionKeyRefreshComplete(EncryptionKeyRefreshComplete)
    /// An event the host does not decode, kept whole.
    case other(code: UInt8, parameters: [UInt8])

    /// Event code of Disconnection Complete.
    public static let disconnectionCompleteCode: UInt8 = 0x05
    /// Event code of Command Complete.
    public static let commandCompleteCode: UInt8 = 0x0E
    /// Event code of Command Status.
    public static let commandStatusCode: UInt8 = 0x0F
    /// Event code of Number Of Completed Packets.
    public static let numberOfCompletedPacketsCode: UInt8 = 0x13
    /// Event code of the LE Meta event.
    public static let leMetaCode: UInt8 = 0x3E
    /// Event code of Encryption Change (v1).
    public static let encryptionChangeCode: UInt8 = 0x08
    /// Event code of Encryption Change v2, which adds the key size.
    public static let encryptionChangeV2Code: UInt8 = 0x59
    /// Event code of Encryption Key Refresh Complete.
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
            throw ByteDecodingError(
                typeName: "HCIEvent", field: "packetType", offset: 0,
                reason: .invalidValue("a \(packet.type) packet is not an event"))
        }
        self = try HCIEvent(decoding: packet.payload)
    }
}

/// Disconnection Complete (0x05): a connection ended.
public struct DisconnectionComplete: Hashable, Sendable, ByteDecodable {
    /// Whether the disconnection itself succeeded.
    public var status: HCIStatus
    /// The connection handle that ended.
    public var handle: UInt16
    /// Why the link ended (an HCI error code, e.g. 0x13 remote user terminated, 0x08 timeout).
    public var reason: HCIStatus

    /// An event from its fields; `reason` is the HCI error code that ended the link.
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

    /// An event from its fields.
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
    /// 0 when the controller started the command; otherwise why it refused it.
    public var status: HCIStatus
    /// How many commands the host may send now (the controller's command flow control).
    public var numberOfAllowedCommands: UInt8
    /// The command this status is for.
    public var opcode: HCIOpcode

    /// An event from its fields.
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
    /// The connection handle.
    public var handle: UInt16
    /// How many ACL packets of that connection the controller finished with since the last event.
    public var count: UInt16

    /// An entry from its fields.
    public init(handle: UInt16, count: UInt16) {
        self.handle = handle
        self.count = count
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        handle = try reader.read(UInt16.self, field: "handle") & 0x0FFF
        count = try reader.read(UInt16.self, field: "count")
    }
}
