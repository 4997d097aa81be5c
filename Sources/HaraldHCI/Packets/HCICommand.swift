import HaraldCodec

/// An HCI command opcode: OGF (command group, 6 bits) and OCF (command, 10 bits),
/// packed as `OGF << 10 | OCF`.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit opcode as an HCI command packet carries it (little-endian on the wire).
    public let rawValue: UInt16
    /// The opcode with these 16 bits; any value is accepted, known to Harald or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// The opcode of command `ocf` (10 bits) in group `ogf` (6 bits).
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF) }

    /// Opcode group field.
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// Opcode command field.
    public var ocf: UInt16 { rawValue & 0x03FF }

    /// The opcode in hex, then the command's name when Harald knows it, e.g. `0x0C03 Reset`.
    public var description: String { "0x\(Hex.word(rawValue))" + (Self.names[rawValue].map { " \($0)" } ?? "") }

    // Link control
    /// Disconnect (Link Control, Core spec Vol 4 Part E §7.1.6): end a connection.
    public static let disconnect = HCIOpcode(rawValue: 0x0406)
    /// Read Remote Version Information (§7.1.23).
    public static let readRemoteVersionInformation = HCIOpcode(rawValue: 0x041D)
    // Controller and baseband
    /// Set Event Mask (Controller & Baseband §7.3.1): which events the controller reports.
    public static let setEventMask = HCIOpcode(rawValue: 0x0C01)
    /// Reset (§7.3.2): the controller back to its initial state.
    public static let reset = HCIOpcode(rawValue: 0x0C03)
    /// Set Event Mask Page 2 (§7.3.69).
    public static let setEventMaskPage2 = HCIOpcode(rawValue: 0x0C63)
    // Informational
    /// Read Local Version Information (Informational §7.4.1).
    public static let readLocalVersionInformation = HCIOpcode(rawValue: 0x1001)
    /// Read Local Supported Commands (§7.4.2).
    public static let readLocalSupportedCommands = HCIOpcode(rawValue: 0x1002)
    /// Read Local Supported Features (§7.4.3).
    public static let readLocalSupportedFeatures = HCIOpcode(rawValue: 0x1003)
    /// Read Buffer Size (§7.4.5): BR/EDR ACL buffers, shared with LE on some controllers.
    public static let readBufferSize = HCIOpcode(rawValue: 0x1005)
    /// Read BD_ADDR (§7.4.6): the public device address.
    public static let readBDADDR = HCIOpcode(rawValue: 0x1009)
    /// Read RSSI (Status Parameters group): the signal strength of a connection.
    public static let readRSSI = HCIOpcode(rawValue: 0x1405)
    // LE
    /// LE Set Event Mask (LE Controller §7.8.1): which LE subevents are reported.
    public static let leSetEventMask = HCIOpcode(rawValue: 0x2001)
    /// LE Read Buffer Size (§7.8.2).
    public static let leReadBufferSize = HCIOpcode(rawValue: 0x2002)
    /// LE Read Local Supported Features (§7.8.3).
    public static let leReadLocalSupportedFeatures = HCIOpcode(rawValue: 0x2003)
    /// LE Set Random Address (§7.8.4).
    public static let leSetRandomAddress = HCIOpcode(rawValue: 0x2005)
    /// LE Set Advertising Parameters (§7.8.5): legacy advertising type and interval.
    public static let leSetAdvertisingParameters = HCIOpcode(rawValue: 0x2006)
    /// LE Set Advertising Data (§7.8.7): up to 31 octets.
    public static let leSetAdvertisingData = HCIOpcode(rawValue: 0x2008)
    /// LE Set Scan Response Data (§7.8.8): up to 31 octets.
    public static let leSetScanResponseData = HCIOpcode(rawValue: 0x2009)
    /// LE Set Advertising Enable (§7.8.9).
    public static let leSetAdvertisingEnable = HCIOpcode(rawValue: 0x200A)
    /// LE Set Scan Parameters (§7.8.10): active or passive, interval, window.
    public static let leSetScanParameters = HCIOpcode(rawValue: 0x200B)
    /// LE Set Scan Enable (§7.8.11).
    public static let leSetScanEnable = HCIOpcode(rawValue: 0x200C)
    /// LE Create Connection (§7.8.12): connect to an advertiser.
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200D)
    /// LE Create Connection Cancel (§7.8.13).
    public static let leCreateConnectionCancel = HCIOpcode(rawValue: 0x200E)
    /// LE Connection Update (§7.8.18): new connection parameters.
    public static let leConnectionUpdate = HCIOpcode(rawValue: 0x2013)
    /// LE Read Remote Features (§7.8.21).
    public static let leReadRemoteFeatures = HCIOpcode(rawValue: 0x2016)
    /// LE Encrypt (§7.8.22): AES-128 of one block by the controller.
    public static let leEncrypt = HCIOpcode(rawValue: 0x2017)
    /// LE Rand (§7.8.23): 8 random octets from the controller.
    public static let leRand = HCIOpcode(rawValue: 0x2018)
    /// LE Enable Encryption (§7.8.24): the central starts encryption with an LTK.
    public static let leEnableEncryption = HCIOpcode(rawValue: 0x2019)
    /// LE Long Term Key Request Reply (§7.8.25): the peripheral hands over the LTK.
    public static let leLongTermKeyRequestReply = HCIOpcode(rawValue: 0x201A)
    /// LE Long Term Key Request Negative Reply (§7.8.26): no key for this central.
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(rawValue: 0x201B)
    /// LE Set Data Length (§7.8.33): ask for larger link-layer payloads on a connection.
    public static let leSetDataLength = HCIOpcode(rawValue: 0x2022)
    /// LE Read Suggested Default Data Length (§7.8.34).
    public static let leReadSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2023)
    /// LE Write Suggested Default Data Length (§7.8.35): the payload size new connections ask for.
    public static let leWriteSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2024)
    /// LE Read Maximum Data Length (§7.8.46).
    public static let leReadMaximumDataLength = HCIOpcode(rawValue: 0x202F)
    /// LE Set Default PHY (§7.8.48).
    public static let leSetDefaultPHY = HCIOpcode(rawValue: 0x2031)
    /// LE Set PHY (§7.8.49): ask for another PHY on a connection.
    public static let leSetPHY = HCIOpcode(rawValue: 0x2032)
    /// LE Set Advertising Set Random Address (§7.8.52).
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(rawValue: 0x2035)
    /// LE Set Extended Advertising Parameters (§7.8.53).
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(rawValue: 0x2036)
    /// LE Set Extended Advertising Data (§7.8.54).
    public static let leSetExtendedAdvertisingData = HCIOpcode(rawValue: 0x2037)
    /// LE Set Extended Scan Response Data (§7.8.55).
    public static let leSetExtendedScanResponseData = HCIOpcode(rawValue: 0x2038)
    /// LE Set Extended Advertising Enable (§7.8.56).
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(rawValue: 0x2039)
    /// LE Read Maximum Advertising Data Length (§7.8.57).
    public static let leReadMaximumAdvertisingDataLength = HCIOpcode(rawValue: 0x203A)
    /// LE Remove Advertising Set (§7.8.59).
    public static let leRemoveAdvertisingSet = HCIOpcode(rawValue: 0x203C)
    /// LE Set Extended Scan Parameters (§7.8.64).
    public static let leSetExtendedScanParameters = HCIOpcode(rawValue: 0x2041)
    /// LE Set Extended Scan Enable (§7.8.65).
    public static let leSetExtendedScanEnable = HCIOpcode(rawValue: 0x2042)
    /// LE Extended Create Connection (§7.8.66): connect on one or more PHYs.
    public static let leExtendedCreateConnection = HCIOpcode(rawValue: 0x2043)
    /// LE Read Buffer Size v2 (§7.8.2): adds isochronous buffers.
    public static let leReadBufferSizeV2 = HCIOpcode(rawValue: 0x2060)
    /// LE Add Device To Resolving List (§7.8.38): a peer's identity with its IRK and ours, for
    /// controller-based address resolution. Carries two keys (descriptions withhold them).
    public static let leAddDeviceToResolvingList = HCIOpcode(rawValue: 0x2027)
    /// Link Key Request Reply (Link Control §7.1.10, BR/EDR): the link key for a peer. Carries a
    /// key (descriptions withhold it).
    public static let linkKeyRequestReply = HCIOpcode(rawValue: 0x040B)

    private static let names: [UInt16: String] = [
        0x0406: "Disconnect", 0x041D: "Read Remote Version Information", 0x0C01: "Set Event Mask",
        0x0C03: "Reset", 0x0C63: "Set Event Mask Page 2", 0x1001: "Read Local Version Information",
        0x1002: "Read Local Supported Commands", 0x1003: "Read Local Supported Features",
        0x1005: "Read Buffer Size", 0x1009: "Read BD_ADDR", 0x1405: "Read RSSI", 0x2001: "LE Set Event Mask",
        0x2002: "LE Read Buffer Size", 0x2003: "LE Read Local Supported Features",
        0x2005: "LE Set Random Address", 0x2006: "LE Set Advertising Parameters", 0x2008: "LE Set Advertising Data",
        0x2009: "LE Set Scan Response Data", 0x200A: "LE Set Advertising Enable", 0x200B: "LE Set Scan Parameters", 0x200C: "LE Set Scan Enable",
        0x200D: "LE Create Connection", 0x200E: "LE Create Connection Cancel", 0x2013: "LE Connection Update",
        0x2016: "LE Read Remote Features", 0x2017: "LE Encrypt", 0x2018: "LE Rand", 0x2019: "LE Enable Encryption",
        0x201A: "LE Long Term Key Request Reply", 0x201B: "LE Long Term Key Request Negative Reply", 0x2022: "LE Set Data Length",
        0x2023: "LE Read Suggested Default Data Length", 0x2024: "LE Write Suggested Default Data Length",
        0x202F: "LE Read Maximum Data Length", 0x2031: "LE Set Default PHY", 0x2032: "LE Set PHY",
        0x2035: "LE Set Advertising Set Random Address", 0x2036: "LE Set Extended Advertising Parameters",
        0x2037: "LE Set Extended Advertising Data", 0x2038: "LE Set Extended Scan Response Data",
        0x2039: "LE Set Extended Advertising Enable", 0x203A: "LE Read Maximum Advertising Data Length",
        0x203C: "LE Remove Advertising Set", 0x2041: "LE Set Extended Scan Parameters", 0x2042: "LE Set Extended Scan Enable",
        0x2043: "LE Extended Create Connection", 0x2060: "LE Read Buffer Size v2",
        0x2027: "LE Add Device To Resolving List", 0x040B: "Link Key Request Reply",
    ]
}

/// An HCI command packet: opcode and parameters (at most 255 bytes).
public struct HCICommand: Hashable, Sendable, CustomStringConvertible, ByteCodable {
    /// Which command.
    public var opcode: HCIOpcode
    /// The command's parameters, as sent after the length byte.
    public var parameters: [UInt8]

    /// A command from its opcode and encoded parameters.
    public init(_ opcode: HCIOpcode, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Builds the parameters with a writer.
    public init(_ opcode: HCIOpcode, _ build: (inout ByteWriter) -> Void) {
        var writer = ByteWriter()
        build(&writer)
        self.init(opcode, parameters: writer.bytes)
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        opcode = HCIOpcode(rawValue: try reader.read(UInt16.self, field: "opcode"))
        let length = try reader.read(UInt8.self, field: "parameterLength")
        parameters = try reader.readBytes(count: Int(length), field: "parameters")
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        guard parameters.count <= 255 else {
            throw ByteEncodingError(field: "parameters", detail: "\(parameters.count) bytes, at most 255 fit a command")
        }
        writer.write(opcode.rawValue)
        writer.write(UInt8(parameters.count))
        writer.write(bytes: parameters)
    }

    /// The command as a transport packet (parameters past 255 bytes are cut; the constructors in
    /// this module never make such commands).
    public var packet: HCIPacket {
        HCIPacket(
            type: .command,
            payload: [
                UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(opcode.rawValue >> 8),
                UInt8(min(parameters.count, 255)),
            ] + parameters.prefix(255))
    }

    /// The opcode and parameters in hex; in commands that carry a key (LE Enable Encryption, LE
    /// Long Term Key Request Reply, LE Encrypt, LE Add Device To Resolving List, Link Key Request
    /// Reply) the key octets are replaced by `<redacted N bytes>`, e.g.
    /// `0x201A LE Long Term Key Request Reply [4000 <redacted 16 bytes>]`.
    public var description: String { "\(opcode) [\(redactedParameters)]" }
}
