import HaraldCodec

// The UTF-8 string characteristics of the Device Information service (0x180A).

/// Manufacturer Name String (0x2A29).
public struct ManufacturerNameString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A29)
    public static let name = "Manufacturer Name String"
    public var text: String
    public init(text: String) { self.text = text }
}

/// Model Number String (0x2A24).
public struct ModelNumberString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A24)
    public static let name = "Model Number String"
    public var text: String
    public init(text: String) { self.text = text }
}

/// Serial Number String (0x2A25).
public struct SerialNumberString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A25)
    public static let name = "Serial Number String"
    public var text: String
    public init(text: String) { self.text = text }
}

/// Firmware Revision String (0x2A26).
public struct FirmwareRevisionString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A26)
    public static let name = "Firmware Revision String"
    public var text: String
    public init(text: String) { self.text = text }
}

/// Hardware Revision String (0x2A27).
public struct HardwareRevisionString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A27)
    public static let name = "Hardware Revision String"
    public var text: String
    public init(text: String) { self.text = text }
}

/// Software Revision String (0x2A28).
public struct SoftwareRevisionString: TextCharacteristic {
    public static let uuid = BluetoothUUID(0x2A28)
    public static let name = "Software Revision String"
    public var text: String
    public init(text: String) { self.text = text }
}
