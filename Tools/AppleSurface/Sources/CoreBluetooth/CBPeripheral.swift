/// Where a central's link to a peripheral stands.
@available(iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
public enum CBPeripheralState: Int, Sendable {
    /// No link.
    case disconnected = 0
    /// A connection is being made (it does not time out until cancelled).
    case connecting = 1
    /// The link is up.
    case connected = 2
    /// The link is being closed.
    @available(iOS 9.0, macOS 10.13, *)
    case disconnecting = 3
}

/// How a characteristic's value is written.
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
public enum CBCharacteristicWriteType: Int, Sendable {
    /// An ATT Write Request: the peripheral answers, and the delegate hears of it.
    case withResponse = 0
    /// An ATT Write Command: no answer, so no delegate call.
    case withoutResponse = 1
}

/// A remote peripheral a central found, connected or got back from the system. Its GATT
/// procedures answer through its delegate, on the central's queue.
@available(iOS 5.0, macOS 10.7, tvOS 9.0, watchOS 2.0, *)
open class CBPeripheral: CBPeer {
    /// Receives the results of this peripheral's procedures (held weakly).
    open weak var delegate: (any CBPeripheralDelegate)?
    /// The peripheral's GAP device name, if known.
    open var name: String? { surfaceOnly() }
    /// The RSSI of the link when it was last read, in dBm.
    @available(iOS, introduced: 5.0, deprecated: 8.0)
    @available(macOS, introduced: 10.7, deprecated: 10.13)
    open var rssi: NSNumber? { surfaceOnly() }
    /// Whether the link is down, being made, up or being closed.
    open var state: CBPeripheralState { surfaceOnly() }
    /// The services found so far; nil before any service discovery.
    open var services: [CBService]? { surfaceOnly() }
    /// Whether the system's queue for writes without response has room.
    @available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
    open var canSendWriteWithoutResponse: Bool { surfaceOnly() }
    /// Whether the user allowed the Apple Notification Center Service on this link.
    @available(iOS 13.0, watchOS 6.0, *)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    open var ancsAuthorized: Bool { surfaceOnly() }

    /// Reads the link's RSSI; the answer comes in `peripheral(_:didReadRSSI:error:)`.
    open func readRSSI() { surfaceOnly() }
    /// Discovers primary services, only those of these types (all when nil).
    open func discoverServices(_ serviceUUIDs: [CBUUID]?) { surfaceOnly() }
    /// Discovers the services a service includes (only these types; all when nil).
    open func discoverIncludedServices(_ includedServiceUUIDs: [CBUUID]?, for service: CBService) { surfaceOnly() }
    /// Discovers a service's characteristics (only these types; all when nil).
    open func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) { surfaceOnly() }
    /// Reads a characteristic's value (long values with Read Blob).
    open func readValue(for characteristic: CBCharacteristic) { surfaceOnly() }
    /// The longest value one write of this type can carry, in bytes.
    @available(iOS 9.0, macOS 10.12, tvOS 9.0, watchOS 2.0, *)
    open func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int { surfaceOnly() }
    /// Writes a characteristic's value, with or without response.
    open func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) { surfaceOnly() }
    /// Turns notifications or indications of a characteristic on or off (its CCCD).
    open func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) { surfaceOnly() }
    /// Discovers a characteristic's descriptors.
    open func discoverDescriptors(for characteristic: CBCharacteristic) { surfaceOnly() }
    /// Reads a descriptor's value.
    open func readValue(for descriptor: CBDescriptor) { surfaceOnly() }
    /// Writes a descriptor's value (not the CCCD's: use `setNotifyValue(_:for:)`).
    open func writeValue(_ data: Data, for descriptor: CBDescriptor) { surfaceOnly() }
    /// Opens an L2CAP connection-oriented channel on this PSM; the channel comes to the delegate.
    @available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
    open func openL2CAPChannel(_ PSM: CBL2CAPPSM) { surfaceOnly() }
}

/// The results of a peripheral's GATT procedures and changes of the peripheral, delivered on the
/// central's queue. Apple declares every method optional; here each has a default that does
/// nothing, so a delegate implements only the ones it wants, as on Apple platforms.
public protocol CBPeripheralDelegate: NSObjectProtocol {
    /// The peripheral's GAP device name changed.
    func peripheralDidUpdateName(_ peripheral: CBPeripheral)
    /// The peripheral's GATT database changed (Service Changed): these services are gone; discover
    /// again to find what replaced them.
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService])
    /// An RSSI read finished (replaced by `peripheral(_:didReadRSSI:error:)`).
    func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?)
    /// An RSSI read finished; the value is in dBm.
    func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?)
    /// Service discovery finished (or failed).
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?)
    /// Discovery of a service's included services finished.
    func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?)
    /// Discovery of a service's characteristics finished.
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?)
    /// A read of the characteristic finished, or a notification or indication of it arrived.
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    /// A write with response to the characteristic finished.
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    /// Notifications or indications of the characteristic were turned on or off (or that failed).
    func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?)
    /// Discovery of the characteristic's descriptors finished.
    func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?)
    /// A read of the descriptor finished.
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?)
    /// A write to the descriptor finished.
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?)
    /// The queue for writes without response has room again.
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral)
    /// An L2CAP channel opened (or failed to).
    func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
}

extension CBPeripheralDelegate {
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralDidUpdateName(_ peripheral: CBPeripheral) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {}
    /// Does nothing (an optional method on Apple platforms).
    @available(iOS, introduced: 5.0, deprecated: 8.0)
    @available(macOS, introduced: 10.7, deprecated: 10.13)
    public func peripheralDidUpdateRSSI(_ peripheral: CBPeripheral, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didReadRSSI RSSI: NSNumber, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverIncludedServicesFor service: CBService, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverDescriptorsFor characteristic: CBCharacteristic, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor descriptor: CBDescriptor, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor descriptor: CBDescriptor, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheral(_ peripheral: CBPeripheral, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {}
}

/// An L2CAP Protocol/Service Multiplexer value.
public typealias CBL2CAPPSM = UInt16

/// An open L2CAP connection-oriented channel, read and written as streams.
@available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
open class CBL2CAPChannel: NSObject {
    /// The device at the other end.
    open var peer: CBPeer! { surfaceOnly() }
    /// What the peer sends.
    open var inputStream: InputStream! { surfaceOnly() }
    /// What goes to the peer.
    open var outputStream: OutputStream! { surfaceOnly() }
    /// The channel's PSM.
    open var psm: CBL2CAPPSM { surfaceOnly() }
}
