import HaraldCodec

/// Day of Week (0x2A09): Monday 1 … Sunday 7, or 0 when not known. Codes 8…255 are reserved and
/// rejected when decoding.
public enum DayOfWeek: UInt8, CharacteristicValue, CaseIterable {
    /// Day of Week codes: 0 unknown, 1 Monday … 7 Sunday.
    case unknown = 0, monday, tuesday, wednesday, thursday, friday, saturday, sunday

    public static let uuid = BluetoothUUID(0x2A09)
    public static let name = "Day of Week"

    @inlinable
    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        let code = try reader.read(UInt8.self, field: "dayOfWeek")
        guard let day = DayOfWeek(rawValue: code) else {
            throw reader.invalidValue("\(code) is not 0 (unknown) or 1 (Monday)…7 (Sunday)", field: "dayOfWeek", at: start)
        }
        self = day
    }

    @inlinable
    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        writer.write(rawValue)
    }

    /// The day's name in camelCase (`monday`, …, `unknown`).
    public var caseName: String { "\(self)" }

    /// `{dayOfWeek: "monday", code: 1}`.
    public var jsonValue: JSONValue { .object(["dayOfWeek": .string(caseName), "code": .int(rawValue)]) }
}
