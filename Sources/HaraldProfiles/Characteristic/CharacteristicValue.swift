import HaraldCodec

/// A value of a GATT characteristic (or descriptor) with a known UUID: it reads and writes its
/// wire form and describes itself as JSON for logs and the command line.
///
/// Conformers decode with `HaraldCodec/ByteReader` and encode with `HaraldCodec/ByteWriter`;
/// `T(decoding: bytes)` decodes a whole value and rejects trailing bytes.
public protocol CharacteristicValue: ByteCodable, Hashable, Sendable {
    /// The characteristic's (or descriptor's) UUID, such as `2A37` for Heart Rate Measurement.
    static var uuid: BluetoothUUID { get }
    /// The name the Bluetooth SIG (or the vendor) gives the characteristic.
    static var name: String { get }
    /// The value as a JSON tree with camelCase keys, as `harald decode` prints it.
    var jsonValue: JSONValue { get }
}
