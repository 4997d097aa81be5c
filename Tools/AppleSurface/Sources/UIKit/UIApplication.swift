// The few UIKit declarations an iOS app's launch path needs (an app delegate for state
// restoration), as Apple's Swift interface declares them. Compile-only: every body traps.
import Foundation

func surfaceOnly(_ function: StaticString = #function) -> Never {
    fatalError("\(function) is part of a compile-only surface")
}

/// An object that responds to and handles events.
@MainActor @preconcurrency
open class UIResponder: NSObject {}

/// The app's one application object, which runs its event loop.
@MainActor @preconcurrency
open class UIApplication: UIResponder {
    /// The app's application object.
    public class var shared: UIApplication { surfaceOnly() }

    /// Keys of the options the system passes at launch.
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The restore identifiers of the central managers the system relaunched the app for
        /// (Bluetooth state restoration), an array of strings.
        public static let bluetoothCentrals = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsBluetoothCentralsKey")
        /// The restore identifiers of the peripheral managers the system relaunched the app for.
        public static let bluetoothPeripherals = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsBluetoothPeripheralsKey")
    }
}

/// The methods UIKit calls on the app's delegate for its life-cycle events (all optional).
@MainActor @preconcurrency
public protocol UIApplicationDelegate: NSObjectProtocol {
    /// The launch is nearly done: the place to make what must exist before the app runs (a
    /// central manager with a restore identifier, so the system can hand back its connections).
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
}

extension UIApplicationDelegate {
    /// Returns true (an optional method on Apple platforms).
    public func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }
}
