/// What a manager knows of the Bluetooth radio and the app's right to use it.
@available(iOS 10.0, macOS 10.13, tvOS 10.0, watchOS 3.0, *)
public enum CBManagerState: Int, Sendable {
    /// Not known yet; an update follows.
    case unknown = 0
    /// The connection to the system's Bluetooth service was lost and is being made again.
    case resetting = 1
    /// The device has no Bluetooth Low Energy radio.
    case unsupported = 2
    /// The app may not use Bluetooth.
    case unauthorized = 3
    /// The radio is off.
    case poweredOff = 4
    /// The radio is on and usable.
    case poweredOn = 5
}

/// Whether the user lets the app use Bluetooth.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public enum CBManagerAuthorization: Int, Sendable {
    /// The user has not been asked yet.
    case notDetermined = 0
    /// A policy (parental controls, a profile) keeps the app from Bluetooth.
    case restricted = 1
    /// The user said no.
    case denied = 2
    /// The app may use Bluetooth, in the background too.
    case allowedAlways = 3
}

/// What the central and peripheral managers share: the radio's state and the app's authorization.
/// Not made directly; its initializer is unavailable.
@available(iOS 10.0, macOS 10.13, tvOS 10.0, watchOS 3.0, *)
open class CBManager: NSObject {
    init(surfaceOnly: Void) { super.init() }

    /// The radio's current state; changes arrive through the delegate's state update.
    open var state: CBManagerState { surfaceOnly() }

    /// The app's Bluetooth authorization; reading it does not ask the user.
    @available(iOS 13.1, macOS 10.15, tvOS 13.1, watchOS 6.1, *)
    open class var authorization: CBManagerAuthorization { surfaceOnly() }

    /// The app's Bluetooth authorization, per manager (replaced by the class property).
    @available(iOS, introduced: 13.0, deprecated: 13.1)
    @available(tvOS, introduced: 13.0, deprecated: 13.1)
    @available(watchOS, introduced: 6.0, deprecated: 6.1)
    open var authorization: CBManagerAuthorization { surfaceOnly() }
}
