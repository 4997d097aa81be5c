import HaraldCodec

/// Identifies a peripheral to connect to, the way the backend knows it: a Bluetooth device
/// address on HCI and in the simulator, an opaque per-phone UUID on CoreBluetooth.
public struct PeripheralIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The backend's text form: `"F0:F1:F2:F3:F4:F5/random"`, or a UUID string on Apple.
    public var rawValue: String
    /// The 48-bit device address, when the backend exposes it (not on CoreBluetooth).
    public var address: DeviceAddress?

    public init(rawValue: String, address: DeviceAddress? = nil) {
        self.rawValue = rawValue
        self.address = address
    }

    /// An identifier for a device address.
    public init(address: DeviceAddress) {
        self.rawValue = address.description
        self.address = address
    }

    public var description: String { rawValue }
}

/// A 48-bit Bluetooth device address and its type.
public struct DeviceAddress: Hashable, Sendable, CustomStringConvertible {
    /// Public (IEEE-assigned) or random (static, or private resolvable/non-resolvable).
    public enum Kind: Hashable, Sendable { case `public`, random }

    /// The address bytes, most significant first, as printed (`F0:F1:F2:F3:F4:F5`).
    public var bytes: [UInt8]
    public var kind: Kind

    /// An address from 6 bytes, most significant first; nil for any other length.
    public init?(bytes: [UInt8], kind: Kind) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
        self.kind = kind
    }

    /// Parses `F0:F1:F2:F3:F4:F5` (any case; `-` also accepted as separator).
    public init?(_ text: String, kind: Kind) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
        self.kind = kind
    }

    /// `F0:F1:F2:F3:F4:F5`.
    public var string: String { Hex.encode(bytes, separator: ":", uppercase: true) }

    public var description: String { "\(string)/\(kind == .public ? "public" : "random")" }
}

/// One advertisement (merged with its scan response for active scans) seen while scanning.
public struct Advertisement: Hashable, Sendable {
    /// Who sent it; pass to ``Central/connect(to:timeout:)``.
    public var peripheral: PeripheralIdentifier
    /// Received signal strength in dBm (127 when unknown).
    public var rssi: Int
    /// Whether the advertiser accepts connections.
    public var isConnectable: Bool
    /// The advertising data (and scan-response data, appended) with typed accessors.
    public var data: AdvertisingData
    /// When it was received, as backend time since the scan started.
    public var receivedAt: Duration

    public init(peripheral: PeripheralIdentifier, rssi: Int, isConnectable: Bool, data: AdvertisingData, receivedAt: Duration = .zero) {
        self.peripheral = peripheral
        self.rssi = rssi
        self.isConnectable = isConnectable
        self.data = data
        self.receivedAt = receivedAt
    }

    /// The advertised name, if any.
    public var localName: String? { data.localName }
    /// The advertised service UUIDs.
    public var serviceUUIDs: [BluetoothUUID] { data.serviceUUIDs }
}
