// swift-tools-version: 6.1
import PackageDescription

// Compile-only stand-ins for Apple frameworks (CoreBluetooth, SwiftUI and the bit of UIKit an app's launch needs), so that Harald's Apple-only Swift can be
// type-checked on Linux (scripts/check-corebluetooth). Every declaration follows Apple's published
// Swift interface; nothing in it runs (bodies trap). Not part of the main package: nothing the
// project builds or ships depends on it, and an Apple platform never sees it.
let package = Package(
    name: "AppleSurface",
    products: [
        .library(name: "CoreBluetooth", targets: ["CoreBluetooth"]),
        .library(name: "SwiftUI", targets: ["SwiftUI"]),
        .library(name: "UIKit", targets: ["UIKit"]),
    ],
    targets: [
        .target(
            name: "CoreBluetooth",
            swiftSettings: [
                // CoreBluetooth is an Objective-C framework with no Sendable or actor annotations:
                // Swift treats such a module as written before concurrency checking, so its classes
                // are not Sendable, and `@preconcurrency import CoreBluetooth` silences what follows
                // from that. A module built in the Swift 5 language mode is seen the same way.
                .swiftLanguageMode(.v5),
                // Its NS_ENUMs are open to new cases: a Swift 6 `switch` over one needs
                // `@unknown default`. Enums of a module built with library evolution are the same.
                // (SwiftPM allows this flag in a root or path-dependency package.)
                .unsafeFlags(["-enable-library-evolution"]),
            ]),
        // SwiftUI is a Swift module with explicit annotations (`@MainActor @preconcurrency` views,
        // `nonisolated` initializers and modifiers), written here as they are.
        .target(name: "SwiftUI", dependencies: ["UIKit"]),
        // UIKit's application delegate, for an app's launch path (state restoration).
        .target(name: "UIKit"),
    ],
    swiftLanguageModes: [.v6]
)
