import HaraldCodec

/// A characteristic the app uses: its UUID, the service it lives in, the type of its value and
/// — in `Access` — what it permits.
///
/// ```swift
/// extension Characteristic where Value == LEDColor, Access == ReadWrite {
///     static var ledColor: Self { .init("6E400002-B5A3-F393-E0A9-E50E24DCCA9E", service: "6E400001-B5A3-F393-E0A9-E50E24DCCA9E") }
/// }
/// let color = try await connection.read(.ledColor)
/// ```
public struct Characteristic<Value, Access: CharacteristicAccess>: Hashable, Sendable {
    /// The characteristic's UUID.
    public let uuid: BluetoothUUID
    /// The service it belongs to.
    public let service: BluetoothUUID

    /// A spec for characteristic `uuid` in service `service`.
    public init(_ uuid: BluetoothUUID, service: BluetoothUUID) {
        self.uuid = uuid
        self.service = service
    }

    /// The characteristic declared with another value type (say, raw bytes for a tool).
    public func withValue<Other>(_: Other.Type) -> Characteristic<Other, Access> {
        Characteristic<Other, Access>(uuid, service: service)
    }

    /// Equal when both name the same characteristic UUID in the same service.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.uuid == rhs.uuid && lhs.service == rhs.service }
    /// Hashes the characteristic and service UUIDs, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(uuid)
        hasher.combine(service)
    }
}

/// A service the app uses and the characteristics it needs from it; connections discover only
/// what the app declared.
public struct ServiceSpec: Hashable, Sendable {
    /// The service type.
    public let uuid: BluetoothUUID
    /// The characteristic UUIDs the app uses in this service.
    public let characteristics: [BluetoothUUID]

    /// A service and the characteristics the app uses in it.
    public init(_ uuid: BluetoothUUID, characteristics: [BluetoothUUID]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }
}
