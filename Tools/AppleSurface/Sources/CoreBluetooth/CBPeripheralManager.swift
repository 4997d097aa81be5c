/// The connection latency a peripheral manager asks a central for.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
public enum CBPeripheralManagerConnectionLatency: Int, Sendable {
    /// Short intervals: quick exchanges, more power.
    case low = 0
    /// A balance of latency and power.
    case medium = 1
    /// Long intervals: less power.
    case high = 2
}

/// One ATT read or write a connected central sent to the app's peripheral manager.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBATTRequest: NSObject {
    init(surfaceOnly: Void) { super.init() }

    /// The central that sent it.
    open var central: CBCentral { surfaceOnly() }
    /// The characteristic it reads or writes.
    open var characteristic: CBCharacteristic { surfaceOnly() }
    /// Where in the value the read starts or the write goes.
    open var offset: Int { surfaceOnly() }
    /// A write's bytes; the app sets it to answer a read.
    open var value: Data? {
        get { surfaceOnly() }
        set { surfaceOnly() }
    }
}

/// Publishes GATT services in the device's local database, advertises, and answers connected
/// centrals. Its delegate hears of each event on the queue given at creation.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBPeripheralManager: CBManager {
    /// Receives the manager's events (held weakly).
    open weak var delegate: (any CBPeripheralManagerDelegate)?
    /// Whether the system is advertising for the app.
    open var isAdvertising: Bool { surfaceOnly() }

    /// A manager without a delegate, reporting on the main queue.
    public convenience init() { surfaceOnly() }
    /// A manager reporting to `delegate` on `queue` (the main queue when nil).
    public convenience init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?) { surfaceOnly() }
    /// A manager reporting to `delegate` on `queue`, with the `CBPeripheralManagerOption…` options.
    @available(iOS 7.0, macOS 10.9, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        super.init(surfaceOnly: ())
    }

    /// Starts advertising; only the local name and service UUIDs keys are honoured.
    open func startAdvertising(_ advertisementData: [String: Any]?) { surfaceOnly() }
    /// Stops advertising.
    open func stopAdvertising() { surfaceOnly() }
    /// Asks a connected central for this connection latency.
    open func setDesiredConnectionLatency(_ latency: CBPeripheralManagerConnectionLatency, for central: CBCentral) { surfaceOnly() }
    /// Publishes a service (and its included services) in the local GATT database.
    open func add(_ service: CBMutableService) { surfaceOnly() }
    /// Removes a published service.
    open func remove(_ service: CBMutableService) { surfaceOnly() }
    /// Removes every service the app published.
    open func removeAllServices() { surfaceOnly() }
    /// Answers a read or write request (for a batch of writes: its first request) with a result.
    open func respond(to request: CBATTRequest, withResult result: CBATTError.Code) { surfaceOnly() }
    /// Notifies or indicates a new value to subscribed centrals (all when nil). False when the
    /// transmit queue is full: send again after `peripheralManagerIsReady(toUpdateSubscribers:)`.
    open func updateValue(_ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?) -> Bool {
        surfaceOnly()
    }
    /// Publishes an L2CAP channel; its PSM comes to the delegate.
    @available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
    open func publishL2CAPChannel(withEncryption encryptionRequired: Bool) { surfaceOnly() }
    /// Removes a published L2CAP channel.
    @available(iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, *)
    open func unpublishL2CAPChannel(_ PSM: CBL2CAPPSM) { surfaceOnly() }
}

/// The events of a peripheral manager, delivered on its queue. Only the state update is
/// required; Apple declares the rest optional, and here each of those has a default that does
/// nothing.
public protocol CBPeripheralManagerDelegate: NSObjectProtocol {
    /// The radio's state or the app's authorization changed. Required.
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    /// The system relaunched the app and hands back the manager's services and advertisement.
    func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any])
    /// Advertising started (or failed).
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?)
    /// Publishing the service finished (or failed).
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?)
    /// The central turned notifications or indications of the characteristic on.
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic)
    /// The central turned notifications or indications of the characteristic off.
    func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic)
    /// A central read a characteristic whose value the app serves; answer with `respond(to:withResult:)`.
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest)
    /// A central wrote (several requests for one executed prepared write); answer the first.
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    /// The transmit queue has room for more updates.
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager)
    /// An L2CAP channel was published on this PSM (or failed to be).
    func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    /// The L2CAP channel on this PSM was removed.
    func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?)
    /// A central opened a published L2CAP channel (or that failed).
    func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?)
}

extension CBPeripheralManagerDelegate {
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, willRestoreState dict: [String: Any]) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didPublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didUnpublishL2CAPChannel PSM: CBL2CAPPSM, error: (any Error)?) {}
    /// Does nothing (an optional method on Apple platforms).
    public func peripheralManager(_ peripheral: CBPeripheralManager, didOpen channel: CBL2CAPChannel?, error: (any Error)?) {}
}
