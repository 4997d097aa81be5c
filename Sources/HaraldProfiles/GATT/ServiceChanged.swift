import HaraldCodec

/// Service Changed (0x2A05, GATT service, indicate): the range of attribute handles whose
/// services changed, so a client must discover them again. Two u16 handles.
///
/// A start handle of 0 or a start above the end is rejected when decoding and encoding.
public struct ServiceChanged: CharacteristicValue {
    public static let uuid = BluetoothUUID(0x2A05)
    public static let name = "Service Changed"

    /// First affected handle.
    public var startHandle: UInt16
    /// Last affected handle.
    public var endHandle: UInt16

    /// Everything: handles 0x0001…0xFFFF.
    public static let all = ServiceChanged(uncheckedStart: 0x0001, end: 0xFFFF)

    /// A range; nil when `startHandle` is 0 or above `endHandle`.
    public init?(startHandle: UInt16, endHandle: UInt16) {
        guard startHandle != 0, startHandle <= endHandle else { return nil }
        self.init(uncheckedStart: startHandle, end: endHandle)
    }

    private init(uncheckedStart: UInt16, end: UInt16) {
        startHandle = uncheckedStart
        endHandle = end
    }

    /// The affected handles.
    public var handles: ClosedRange<UInt16> { startHandle...max(startHandle, endHandle) }

    public init(from reader: inout ByteReader) throws(ByteDecodingError) {
        let start = reader.offset
        startHandle = try reader.read(UInt16.self, field: "startHandle")
        endHandle = try reader.read(UInt16.self, field: "endHandle")
        guard startHandle != 0 else { throw reader.invalidValue("handle 0 is not a valid handle", field: "startHandle", at: start) }
        guard startHandle <= endHandle else {
            throw reader.invalidValue("start \(startHandle) is above end \(endHandle)", field: "endHandle", at: start + 2)
        }
    }

    public func encode(to writer: inout ByteWriter) throws(ByteEncodingError) {
        try requireEncodable(startHandle != 0, field: "startHandle", "handle 0 is not a valid handle")
        try requireEncodable(startHandle <= endHandle, field: "endHandle", "start \(startHandle) is above end \(endHandle)")
        writer.write(startHandle)
        writer.write(endHandle)
    }

    /// `{startHandle, endHandle}`.
    public var jsonValue: JSONValue { .object(["startHandle": .int(startHandle), "endHandle": .int(endHandle)]) }
}
