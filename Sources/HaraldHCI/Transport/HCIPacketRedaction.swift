import HaraldCodec

/// Which bytes of an HCI packet a text may show.
///
/// Descriptions, debug descriptions and mirrors of packets end up in logs, test reports and bug
/// reports, which live longer and travel further than the link. So they show the bytes that
/// identify a packet and leave out the secrets:
///
/// - commands that carry a key: LE Enable Encryption (the LTK; its Rand and EDIV stay, they go
///   over the air in the clear), LE Long Term Key Request Reply (the LTK), LE Encrypt (key and
///   plaintext), LE Add Device To Resolving List (both IRKs), Link Key Request Reply (the link key);
/// - events that carry one: Command Complete of LE Encrypt (the ciphertext), LE Generate DHKey
///   Complete (the DHKey), Link Key Notification (the link key);
/// - SMP PDUs in ACL data (L2CAP CID 0x0006) whose values are keys or open a way to them: Pairing
///   Confirm and Pairing Random (with both, a legacy pairing's TK, and then STK and LTK, are
///   found by search; in Passkey Entry they give the passkey away bit by bit), Encryption
///   Information (LTK), Central Identification (EDIV and Rand of that LTK), Identity Information
///   (IRK), Signing Information (CSRK) and Pairing DHKey Check. Pairing Request and Response,
///   Public Key, Pairing Failed, Security Request, Keypress Notification and Identity Address
///   Information are shown whole: they hold no secret (Identity Address Information holds an
///   address, which `harald bonds list` shows anyway);
/// - continuation fragments of ACL data: one packet alone does not tell which channel they
///   belong to, and a peer may cut an SMP key PDU so that the key arrives in a continuation, so
///   their data is never shown (only its length).
///
/// A btsnoop capture keeps every byte (that is what it is for); it is written owner-only.
enum HCIPacketRedaction {
    /// Key-carrying commands: how many parameter octets lead before the secret, and how many
    /// octets the secret has (all that follows, when nil).
    static let commandSecrets: [HCIOpcode: (visible: Int, secret: Int?)] = [
        .leEnableEncryption: (visible: 12, secret: 16),  // handle 2, Rand 8, EDIV 2, LTK 16
        .leLongTermKeyRequestReply: (visible: 2, secret: 16),  // handle 2, LTK 16
        .leEncrypt: (visible: 0, secret: 32),  // key 16, plaintext 16
        .leAddDeviceToResolvingList: (visible: 7, secret: 32),  // address type 1, address 6, peer IRK 16, local IRK 16
        .linkKeyRequestReply: (visible: 6, secret: 16),  // BD_ADDR 6, link key 16
    ]

    /// SMP codes whose PDU body is withheld (see the type's documentation).
    static let secretSMPCodes: Set<UInt8> = [
        0x03,  // Pairing Confirm
        0x04,  // Pairing Random
        0x06,  // Encryption Information (LTK)
        0x07,  // Central Identification (EDIV, Rand)
        0x08,  // Identity Information (IRK)
        0x0A,  // Signing Information (CSRK)
        0x0D,  // Pairing DHKey Check
    ]

    /// The event code of Link Key Notification (BR/EDR).
    static let linkKeyNotificationCode: UInt8 = 0x18
    /// The LE Meta subevent code of LE Generate DHKey Complete.
    static let generateDHKeyCompleteSubevent: UInt8 = 0x09

    /// How many leading octets of a command's parameters may be shown; nil shows them all.
    static func visibleParameterCount(of opcode: HCIOpcode, parameterCount: Int) -> Int? {
        guard let rule = commandSecrets[opcode] else { return nil }
        return min(rule.visible, parameterCount)
    }

    /// How many leading octets of `packet.payload` may be shown; nil shows them all.
    static func visiblePayloadCount(of packet: HCIPacket) -> Int? {
        let payload = packet.payload
        switch packet.type {
        case .command:
            // opcode 2, length 1, parameters.
            guard payload.count > 3 else { return nil }
            let opcode = HCIOpcode(rawValue: UInt16(payload[0]) | UInt16(payload[1]) << 8)
            return visibleParameterCount(of: opcode, parameterCount: payload.count - 3).map { 3 + $0 }
        case .event:
            // code 1, length 1, parameters.
            guard payload.count > 2 else { return nil }
            switch payload[0] {
            case HCIEvent.commandCompleteCode:
                // Number of commands 1, opcode 2, then the return parameters; LE Encrypt's
                // status stays visible, its ciphertext does not.
                guard payload.count > 5 else { return nil }
                let opcode = HCIOpcode(rawValue: UInt16(payload[3]) | UInt16(payload[4]) << 8)
                return opcode == .leEncrypt ? min(payload.count, 6) : nil
            case HCIEvent.leMetaCode:
                return payload[2] == generateDHKeyCompleteSubevent ? min(payload.count, 4) : nil  // subevent, status
            case linkKeyNotificationCode:
                return min(payload.count, 8)  // BD_ADDR
            default:
                return nil
            }
        case .acl:
            // handle and flags 2, length 2, data.
            guard payload.count > 4 else { return nil }
            let boundary = (payload[1] >> 4) & 0x03
            guard boundary != ACLDataPacket.PacketBoundary.continuing.rawValue else { return 4 }
            // First fragment: L2CAP length 2, CID 2, then the SMP code.
            guard payload.count > 9 else { return nil }
            let cid = UInt16(payload[6]) | UInt16(payload[7]) << 8
            guard cid == 0x0006, secretSMPCodes.contains(payload[8]) else { return nil }
            return 9
        case .sco, .iso:
            return nil
        }
    }

    /// `bytes` in hex up to `visible`, then how many octets were left out.
    static func text(_ bytes: [UInt8], visible: Int?) -> String {
        guard let visible, visible < bytes.count else { return bytes.hexString }
        let withheld = "<redacted \(bytes.count - visible) bytes>"
        return visible == 0 ? withheld : "\(Array(bytes.prefix(visible)).hexString) \(withheld)"
    }
}

extension HCIPacket: CustomDebugStringConvertible, CustomReflectable {
    /// The same text as ``description``: keys stay out of debug output too.
    public var debugDescription: String { description }

    /// The packet type and its redacted text, never the raw payload.
    public var customMirror: Mirror {
        Mirror(self, children: ["type": type, "payload": HCIPacketRedaction.text(payload, visible: HCIPacketRedaction.visiblePayloadCount(of: self))])
    }
}

extension HCICommand: CustomDebugStringConvertible, CustomReflectable {
    /// The same text as ``description``: keys stay out of debug output too.
    public var debugDescription: String { description }

    /// The opcode and the redacted parameters, never a key.
    public var customMirror: Mirror {
        Mirror(self, children: ["opcode": opcode, "parameters": redactedParameters])
    }

    /// The parameters in hex, with the key material of a key-carrying command replaced by
    /// `<redacted N bytes>`.
    var redactedParameters: String {
        HCIPacketRedaction.text(parameters, visible: HCIPacketRedaction.visibleParameterCount(of: opcode, parameterCount: parameters.count))
    }
}

extension CommandComplete: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The opcode and the return parameters in hex; LE Encrypt's ciphertext is withheld, e.g.
    /// `Command Complete 0x2017 LE Encrypt [00 <redacted 16 bytes>]`.
    public var description: String { "Command Complete \(opcode) [\(redactedReturnParameters)]" }
    /// The same text as ``description``.
    public var debugDescription: String { description }
    /// The fields, with the return parameters redacted as in ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["numberOfAllowedCommands": numberOfAllowedCommands, "opcode": opcode, "returnParameters": redactedReturnParameters])
    }

    private var redactedReturnParameters: String {
        HCIPacketRedaction.text(returnParameters, visible: opcode == .leEncrypt ? min(1, returnParameters.count) : nil)
    }
}

extension HCIEvent: CustomStringConvertible, CustomDebugStringConvertible {
    /// The event's name and fields; the key material of LE Encrypt's Command Complete, LE
    /// Generate DHKey Complete and Link Key Notification is replaced by `<redacted N bytes>`.
    public var description: String {
        switch self {
        case let .disconnectionComplete(event): "disconnectionComplete(\(event))"
        case let .commandComplete(event): event.description
        case let .commandStatus(event): "commandStatus(\(event))"
        case let .numberOfCompletedPackets(entries): "numberOfCompletedPackets(\(entries))"
        case let .le(event): event.description
        case let .encryptionChange(event): "encryptionChange(\(event))"
        case let .encryptionKeyRefreshComplete(event): "encryptionKeyRefreshComplete(\(event))"
        case let .other(code, parameters):
            "event 0x\(Hex.byte(code)) [\(HCIPacketRedaction.text(parameters, visible: code == HCIPacketRedaction.linkKeyNotificationCode ? min(6, parameters.count) : nil))]"
        }
    }

    /// The same text as ``description``.
    public var debugDescription: String { description }
}

extension LEMetaEvent: CustomStringConvertible, CustomDebugStringConvertible {
    /// The subevent's name and fields; LE Generate DHKey Complete's DHKey is replaced by
    /// `<redacted 32 bytes>`.
    public var description: String {
        switch self {
        case let .connectionComplete(event): "le.connectionComplete(\(event))"
        case let .advertisingReport(reports): "le.advertisingReport(\(reports))"
        case let .connectionUpdateComplete(event): "le.connectionUpdateComplete(\(event))"
        case let .readRemoteFeaturesComplete(event): "le.readRemoteFeaturesComplete(\(event))"
        case let .dataLengthChange(event): "le.dataLengthChange(\(event))"
        case let .phyUpdateComplete(event): "le.phyUpdateComplete(\(event))"
        case let .extendedAdvertisingReport(reports): "le.extendedAdvertisingReport(\(reports))"
        case let .longTermKeyRequest(event): "le.longTermKeyRequest(\(event))"
        case let .other(subevent, parameters):
            "le subevent 0x\(Hex.byte(subevent)) [\(HCIPacketRedaction.text(parameters, visible: subevent == HCIPacketRedaction.generateDHKeyCompleteSubevent ? min(1, parameters.count) : nil))]"
        }
    }

    /// The same text as ``description``.
    public var debugDescription: String { description }
}
