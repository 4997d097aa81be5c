import HaraldCodec
import HaraldCore

/// Collects the definitions a block lists: `if`, `if/else`, `for` and optional entries work as
/// in any Swift result builder.
@resultBuilder
public enum DefinitionListBuilder<Element> {
    /// One element of the list (or a list of them).
    public static func buildExpression(_ element: Element) -> [Element] { [element] }
    /// One element of the list (or a list of them).
    public static func buildExpression(_ elements: [Element]) -> [Element] { elements }
    /// The elements in order.
    public static func buildBlock(_ parts: [Element]...) -> [Element] { parts.flatMap(\.self) }
    /// An `if` without `else`: its elements, or none.
    public static func buildOptional(_ part: [Element]?) -> [Element] { part ?? [] }
    /// The `if` branch's elements.
    public static func buildEither(first part: [Element]) -> [Element] { part }
    /// The `else` branch's elements.
    public static func buildEither(second part: [Element]) -> [Element] { part }
    /// A `for` loop's elements.
    public static func buildArray(_ parts: [[Element]]) -> [Element] { parts.flatMap(\.self) }
}

/// A service this device serves: handles are assigned in declaration order.
public struct ServiceDefinition: Sendable {
    /// The service type.
    public var uuid: BluetoothUUID
    /// Primary (found by service discovery) or secondary (only included by others).
    public var isPrimary: Bool
    /// Its characteristics, in handle order.
    public var characteristics: [CharacteristicDefinition]

    /// A service from its parts.
    public init(uuid: BluetoothUUID, isPrimary: Bool = true, characteristics: [CharacteristicDefinition]) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.characteristics = characteristics
    }

    /// A primary service with the characteristics the block lists.
    public init<Failure: Error>(
        _ uuid: BluetoothUUID, @DefinitionListBuilder<CharacteristicDefinition> characteristics: () throws(Failure) -> [CharacteristicDefinition]
    ) throws(Failure) {
        self.init(uuid: uuid, characteristics: try characteristics())
    }
}

/// A whole device: its GATT services and how it advertises. The same definition runs in the
/// simulator, over Harald's HCI host, and on CoreBluetooth's peripheral manager.
///
/// ```swift
/// let strap = try PeripheralDefinition(advertisement: PeripheralAdvertisement(name: "Harald HRM", services: [BluetoothUUID(0x180D)])) {
///     try ServiceDefinition(BluetoothUUID(0x180D)) {
///         CharacteristicDefinition(.heartRateMeasurement)
///         try CharacteristicDefinition(.bodySensorLocation, value: .chest)
///     }
/// }
/// ```
public struct PeripheralDefinition: Sendable {
    /// What the device advertises.
    public var advertisement: PeripheralAdvertisement
    /// What the device serves, in handle order.
    public var services: [ServiceDefinition]

    /// A device from its parts.
    public init(advertisement: PeripheralAdvertisement, services: [ServiceDefinition]) {
        self.advertisement = advertisement
        self.services = services
    }

    /// A device from its parts.
    public init<Failure: Error>(
        advertisement: PeripheralAdvertisement, @DefinitionListBuilder<ServiceDefinition> services: () throws(Failure) -> [ServiceDefinition]
    ) throws(Failure) {
        self.init(advertisement: advertisement, services: try services())
    }
}

extension PeripheralDefinition {
    /// This device with every characteristic needing at least `security` for reads, writes and
    /// subscriptions (each keeps a stronger requirement of its own): how a device is served in
    /// the spec's Secure Connections Only mode (Core Vol 3 Part C §10.2.4) with
    /// ``AttributeSecurity/authenticatedSecureConnections``.
    public func requiring(_ security: AttributeSecurity) -> PeripheralDefinition {
        var copy = self
        for service in copy.services.indices {
            for index in copy.services[service].characteristics.indices {
                copy.services[service].characteristics[index].readSecurity.formStronger(security)
                copy.services[service].characteristics[index].writeSecurity.formStronger(security)
            }
        }
        return copy
    }
}

extension AttributeSecurity {
    /// Raises this requirement to `other` where `other` asks more.
    fileprivate mutating func formStronger(_ other: AttributeSecurity) {
        guard other.needsEncryption else { return }
        self = needsEncryption ? combined(with: other) : other
    }
}
