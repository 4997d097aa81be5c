import HaraldCodec

/// Heart Rate Control Point (0x2A39, write): a one-byte command to the sensor.
///
/// Only 0x01 (reset energy expended) is defined. Other codes decode to ``reserved(_:)`` rather
/// than failing, because a server must see them to answer with ATT error 0x80 (Control Point
/// Not Supported).
public enum HeartRateControlPoint: CharacteristicValue {
    /// Reset the Energy Expended field to 0.
    case resetEnergyExpended
    /// Any other code, as received.
    case reserved(UInt8)

    public static let uuid = BluetoothUUID(0x2A39)
    public static let name = "Heart Rate Control Point"
    /// The ATT error code a server returns for an unsupported command.
    public static let controlPointNotSupported: UInt8 = 0x80

    /// The command byte.
    public var code: UInt8 {
        switch self {
        case .resetEnergyExpended: 0x01
        case let .reserved(code): code
        }
    }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let code = try reader.read(UInt8.self, field: "command")
        self = code == 0x01 ? .resetEnergyExpended : .reserved(code)
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        if case let .reserved(code) = self {
            try requireEncodable(code != 0x01, field: "command", "use .resetEnergyExpended for 0x01")
        }
        writer.write(code)
    }

    /// `{command: "resetEnergyExpended", code: 1}`.
    public var jsonValue: JSONValue {
        let name = self == .resetEnergyExpended ? "resetEnergyExpended" : "reserved"
        return .object(["command": .string(name), "code": .int(code)])
    }
}
