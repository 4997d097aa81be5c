/// A remote device: a peripheral seen by a central, or a central connected to a peripheral
/// manager. Not made by the app.
@available(iOS 8.0, macOS 10.13, tvOS 9.0, watchOS 2.0, *)
open class CBPeer: NSObject, NSCopying {
    init(surfaceOnly: Void) { super.init() }

    /// The identifier this device gives the peer; stable on this device, different on others.
    @available(iOS 7.0, macOS 10.13, *)
    open var identifier: UUID { surfaceOnly() }

    /// A copy of the peer object.
    open func copy(with zone: NSZone? = nil) -> Any { surfaceOnly() }
}

/// A central connected to the app's peripheral manager.
@available(iOS 6.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
open class CBCentral: CBPeer {
    /// The largest value one notification or indication to this central can carry (ATT_MTU - 3).
    @available(iOS 7.0, macOS 10.9, *)
    open var maximumUpdateValueLength: Int { surfaceOnly() }
}
