import HaraldCodec

/// The Open GoPro characteristics that carry packetized messages (`b5f9XXXX-aa8d-11e3-9046-0002a5d5c51b`).
public enum GoProCharacteristic: UInt16, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// GP-0072: commands are written here.
    case command = 0x0072
    /// GP-0073: command responses are notified here.
    case commandResponse = 0x0073
    /// GP-0074: settings (and the keep-alive) are written here.
    case settings = 0x0074
    /// GP-0075: setting responses are notified here.
    case settingsResponse = 0x0075
    /// GP-0076: queries are written here.
    case query = 0x0076
    /// GP-0077: query responses and pushes are notified here.
    case queryResponse = 0x0077
    /// GP-0091: network management (protobuf) requests.
    case networkManagementCommand = 0x0091
    /// GP-0092: network management (protobuf) responses.
    case networkManagementResponse = 0x0092

    /// The Control & Query service's 16-bit UUID (scan for it to find cameras).
    public static let controlAndQueryService = BluetoothUUID(0xFEA6)

    /// The 128-bit UUID.
    public var uuid: BluetoothUUID {
        BluetoothUUID(high: 0xB5F9_0000_AA8D_11E3 | UInt64(rawValue) << 32, low: 0x9046_0002_A5D5_C51B)
    }

    /// The short name used in the docs and on the command line, such as `GP-0073`.
    public var shortName: String {
        let digits = Array("0123456789ABCDEF")
        let value = Int(rawValue)
        return "GP-" + String([12, 8, 4, 0].map { digits[(value >> $0) & 0xF] })
    }

    /// The short name, ``shortName``, e.g. `GP-0073`.
    public var description: String { shortName }

    /// The characteristic named `GP-0073` (any case, `GP-` optional) or by its 128-bit UUID.
    public init?(_ text: String) {
        var name = text.uppercased()
        if name.hasPrefix("GP-") { name.removeFirst(3) }
        if name.count == 4, let value = UInt16(name, radix: 16), let known = Self(rawValue: value) {
            self = known
            return
        }
        guard let uuid = BluetoothUUID(text), let known = Self(uuid: uuid) else { return nil }
        self = known
    }

    /// The characteristic with this UUID, if it is one of these.
    public init?(uuid: BluetoothUUID) {
        guard let found = Self.allCases.first(where: { $0.uuid == uuid }) else { return nil }
        self = found
    }
}
