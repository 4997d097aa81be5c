import HaraldCodec

/// A command written to the auth characteristic (0x0009).
///
/// Every command starts with its code and the auth flags byte (0x08 on the Mi Band 2):
/// `01 08 <16-byte key>` installs a key (first pairing), `02 08` asks for a random challenge,
/// `03 08 <16 bytes>` answers it with AES-128-ECB(key, challenge).
public enum MiBandAuthCommand: ByteCodable, Hashable, Sendable {
    /// Installs `key` as the band's secret (first pairing only).
    case setKey([UInt8], flags: UInt8 = MiBandAuthCommand.miBand2Flags)
    /// Asks the band for a 16-byte random challenge.
    case requestChallenge(flags: UInt8 = MiBandAuthCommand.miBand2Flags)
    /// Answers the challenge with its encryption under the shared key.
    case answer([UInt8], flags: UInt8 = MiBandAuthCommand.miBand2Flags)

    /// The auth flags byte the Mi Band 2 uses.
    public static let miBand2Flags: UInt8 = 0x08

    /// The command code (first byte).
    public var code: UInt8 {
        switch self {
        case .setKey: 0x01
        case .requestChallenge: 0x02
        case .answer: 0x03
        }
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "command")
        let flags = try reader.read(UInt8.self, field: "flags")
        switch code {
        case 0x01: self = .setKey(try reader.readBytes(count: 16, field: "key"), flags: flags)
        case 0x02: self = .requestChallenge(flags: flags)
        case 0x03: self = .answer(try reader.readBytes(count: 16, field: "answer"), flags: flags)
        default: throw reader.invalidValue("unknown auth command 0x\(String(code, radix: 16))", field: "command", at: start)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(code)
        switch self {
        case let .setKey(key, flags), let .answer(key, flags):
            guard key.count == 16 else {
                throw ByteEncodingError(field: code == 0x01 ? "key" : "answer", detail: "must be 16 bytes, not \(key.count)")
            }
            writer.write(flags)
            writer.write(bytes: key)
        case let .requestChallenge(flags):
            writer.write(flags)
        }
    }
}

/// The status byte of a Huami reply: `01` success, `04` failure, anything else kept raw.
public enum MiBandReplyStatus: Hashable, Sendable {
    /// `01`: the step succeeded.
    case success
    /// `04`: the step failed (a wrong key, say).
    case failure
    /// Any other status byte, as received.
    case other(UInt8)

    /// A status from its byte.
    public init(rawValue: UInt8) {
        switch rawValue {
        case 0x01: self = .success
        case 0x04: self = .failure
        default: self = .other(rawValue)
        }
    }

    /// The status byte.
    public var rawValue: UInt8 {
        switch self {
        case .success: 0x01
        case .failure: 0x04
        case let .other(value): value
        }
    }
}

/// A reply notified on the auth characteristic: `10 <command> <status>`, followed by the 16-byte
/// challenge when a challenge request succeeded.
///
/// Newer Huami firmware sets bit 7 of the echoed command (`10 82 01 …`); only its low nibble
/// names the command, as Gadgetbridge does.
public struct MiBandAuthReply: ByteCodable, Hashable, Sendable {
    /// The first byte of every reply.
    public static let responseCode: UInt8 = 0x10

    /// The command answered (its code, low nibble of the echoed byte).
    public var command: UInt8
    /// Whether it succeeded.
    public var status: MiBandReplyStatus
    /// The random challenge (16 bytes) of a successful challenge request, else nil.
    public var challenge: [UInt8]?

    /// A reply to `command`; `challenge` is the 16-byte random number of a challenge reply.
    public init(command: UInt8, status: MiBandReplyStatus, challenge: [UInt8]? = nil) {
        self.command = command
        self.status = status
        self.challenge = challenge
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let response = try reader.read(UInt8.self, field: "response")
        guard response == Self.responseCode else {
            throw reader.invalidValue("expected 0x10, got 0x\(String(response, radix: 16))", field: "response", at: start)
        }
        command = try reader.read(UInt8.self, field: "command") & 0x0F
        status = MiBandReplyStatus(rawValue: try reader.read(UInt8.self, field: "status"))
        if command == 0x02, status == .success {
            challenge = try reader.readBytes(count: 16, field: "challenge")
        } else {
            challenge = nil
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(Self.responseCode)
        writer.write(command)
        writer.write(status.rawValue)
        if let challenge {
            guard challenge.count == 16 else { throw ByteEncodingError(field: "challenge", detail: "must be 16 bytes, not \(challenge.count)") }
            writer.write(bytes: challenge)
        }
    }
}
