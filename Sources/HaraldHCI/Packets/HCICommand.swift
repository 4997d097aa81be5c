import HaraldCodec

/// An HCI command opcode: OGF (command group, 6 bits) and OCF (command, 10 bits),
/// packed as `OGF << 10 | OCF`.
public struct HCIOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(ogf: UInt8, ocf: UInt16) { rawValue = UInt16(ogf & 0x3F) << 10 | (ocf & 0x03FF) }

    /// Opcode group field.
    public var ogf: UInt8 { UInt8(rawValue >> 10) }
    /// Opcode command field.
    public var ocf: UInt16 { rawValue & 0x03FF }

    public var description: String { "0x\(Hex.word(rawValue))" + (Self.names[rawValue].map { " \($0)" } ?? "") }

    // Link control
    public static let disconnect = HCIOpcode(rawValue: 0x0406)
    public static let readRemoteVersionInformation = HCIOpcode(rawValue: 0x041D)
    // Controller and baseband
    public static let setEventMask = HCIOpcode(rawValue: 0x0C01)
    public static let reset = HCIOpcode(rawValue: 0x0C03)
    public static let setEventMaskPage2 = HCIOpcode(rawValue: 0x0C63)
    // Informational
    public static let readLocalVersionInformation = HCIOpcode(rawValue: 0x1001)
    public static let readLocalSupportedCommands = HCIOpcode(rawValue: 0x1002)
    public static let readLocalSupportedFeatures = HCIOpcode(rawValue: 0x1003)
    public static let readBufferSize = HCIOpcode(rawValue: 0x1005)
    public static let readBDADDR = HCIOpcode(rawValue: 0x1009)
    /// Read RSSI (Status Parameters group): the signal strength of a connection.
    public static let readRSSI = HCIOpcode(rawValue: 0x1405)
    // LE
    public static let leSetEventMask = HCIOpcode(rawValue: 0x2001)
    public static let leReadBufferSize = HCIOpcode(rawValue: 0x2002)
    public static let leReadLocalSupportedFeatures = HCIOpcode(rawValue: 0x2003)
    public static let leSetRandomAddress = HCIOpcode(rawValue: 0x2005)
    public static let leSetAdvertisingParameters = HCIOpcode(rawValue: 0x2006)
    public static let leSetAdvertisingData = HCIOpcode(rawValue: 0x2008)
    public static let leSetScanResponseData = HCIOpcode(rawValue: 0x2009)
    public static let leSetAdvertisingEnable = HCIOpcode(rawValue: 0x200A)
    public static let leSetScanParameters = HCIOpcode(rawValue: 0x200B)
    public static let leSetScanEnable = HCIOpcode(rawValue: 0x200C)
    public static let leCreateConnection = HCIOpcode(rawValue: 0x200D)
    public static let leCreateConnectionCancel = HCIOpcode(rawValue: 0x200E)
    public static let leConnectionUpdate = HCIOpcode(rawValue: 0x2013)
    public static let leReadRemoteFeatures = HCIOpcode(rawValue: 0x2016)
    public static let leEncrypt = HCIOpcode(rawValue: 0x2017)
    public static let leRand = HCIOpcode(rawValue: 0x2018)
    public static let leEnableEncryption = HCIOpcode(rawValue: 0x2019)
    public static let leLongTermKeyRequestReply = HCIOpcode(rawValue: 0x201A)
    public static let leLongTermKeyRequestNegativeReply = HCIOpcode(rawValue: 0x201B)
    public static let leSetDataLength = HCIOpcode(rawValue: 0x2022)
    public static let leReadSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2023)
    public static let leWriteSuggestedDefaultDataLength = HCIOpcode(rawValue: 0x2024)
    public static let leReadMaximumDataLength = HCIOpcode(rawValue: 0x202F)
    public static let leSetDefaultPHY = HCIOpcode(rawValue: 0x2031)
    public static let leSetPHY = HCIOpcode(rawValue: 0x2032)
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(rawValue: 0x2035)
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(rawValue: 0x2036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(rawValue: 0x2037)
    public static let leSetExtendedScanResponseData = HCIOpcode(rawValue: 0x2038)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(rawValue: 0x2039)
    public static let leReadMaximumAdvertisingDataLength = HCIOpcode(rawValue: 0x203A)
    public static let leRemoveAdvertisingSet = HCIOpcode(rawValue: 0x203C)
    public static let leSetExtendedScanParameters = HCIOpcode(rawValue: 0x2041)
    public static let leSetExtendedScanEnable = HCIOpcode(rawValue: 0x2042)
    public static let leExtendedCreateConnection = HCIOpcode(rawValue: 0x2043)
    public static let leReadBufferSizeV2 = HCIOpcode(rawValue: 0x2060)

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
    ]
}

/// An HCI command packet: opcode and parameters (at most 255 bytes).
public struct HCICommand: Hashable, Sendable, CustomStringConvertible, ByteCodable {
    public var opcode: HCIOpcode
    public var parameters: [UInt8]

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
        HCIPacket(type: .command, payload: [UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(opcode.rawValue >> 8),
                                            UInt8(min(parameters.count, 255))] + parameters.prefix(255))
    }

    /// The opcode and parameters in hex, except for commands that carry a key (LE Enable
    /// Encryption, LE Long Term Key Request Reply, LE Encrypt): their parameters are never printed.
    public var description: String {
        Self.keyCarrying.contains(opcode) ? "\(opcode) [\(parameters.count) bytes, key withheld]" : "\(opcode) [\(parameters.hexString)]"
    }

    /// Commands whose parameters include key material.
    static let keyCarrying: Set<HCIOpcode> = [.leEnableEncryption, .leLongTermKeyRequestReply, .leEncrypt]
}
