import HaraldCodec

/// Device Name (0x2A00, GAP service): the device's name as UTF-8, at most 248 bytes.
public struct DeviceName: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A00)
    public static let name = "Device Name"
    public static var maximumByteCount: Int { 248 }
    /// The name.
    public var text: String
    public init(text: String) { self.text = text }
}
