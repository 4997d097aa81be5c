import HaraldCodec
import HaraldSimulator

/// The Open GoPro UUIDs the simulated camera uses.
extension VirtualPeripheral {
    /// The Open GoPro service and characteristic UUIDs the simulated camera serves
    /// (protocols.md A.1): `GP-XXXX` is `b5f9XXXX-aa8d-11e3-9046-0002a5d5c51b`; the control and
    /// query service is the 16-bit 0xFEA6.
    public enum OpenGoPro {
        /// Control & Query service (0xFEA6).
        public static let service = BluetoothUUID(0xFEA6)
        /// GP-XXXX.
        public static func uuid(_ short: UInt16) -> BluetoothUUID {
            let hex = String(short, radix: 16, uppercase: true)
            return BluetoothUUID("B5F9" + String(repeating: "0", count: 4 - hex.count) + hex + "-AA8D-11E3-9046-0002A5D5C51B")!
        }
        /// Command (GP-0072, write).
        public static let command = uuid(0x0072)
        /// Command Response (GP-0073, notify).
        public static let commandResponse = uuid(0x0073)
        /// Settings (GP-0074, write).
        public static let settings = uuid(0x0074)
        /// Settings Response (GP-0075, notify).
        public static let settingsResponse = uuid(0x0075)
        /// Query (GP-0076, write).
        public static let query = uuid(0x0076)
        /// Query Response (GP-0077, notify).
        public static let queryResponse = uuid(0x0077)
        /// WiFi Access Point service (GP-0001).
        public static let wifiService = uuid(0x0001)
        /// WiFi AP SSID (GP-0002): readable only over an encrypted (paired) link.
        public static let wifiSSID = uuid(0x0002)
    }
}
