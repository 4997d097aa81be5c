// swift-tools-version: 6.1
import PackageDescription

// Layers, bottom to top (see README): HaraldCodec → HaraldProfiles → HaraldATT → … → harald CLI.
// The core modules depend on nothing but the standard library (and Foundation where a value
// needs `Data` or `Date`), so they build for iOS as well as for Linux.
let package = Package(
    name: "Harald",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HaraldCodec", targets: ["HaraldCodec"]),
        .library(name: "HaraldHCI", targets: ["HaraldHCI"]),
        .executable(name: "harald", targets: ["harald"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "HaraldCodec",
            // Rounding in the IEEE-11073 encoders calls libm, which Linux links only on request.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // The host stack over HCI: transports (TCP, Linux HCI user channel), HCI packets, LE
        // central, ACL/L2CAP fixed channels, btsnoop. POSIX sockets live here and nowhere else.
        .target(name: "HaraldHCI", dependencies: ["HaraldCodec"]),
        .executableTarget(
            name: "harald",
            dependencies: [
                "HaraldCodec",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libFuzzer entry point; inert unless built with -DFUZZING (see scripts/fuzz).
        .executableTarget(name: "FuzzDecode", dependencies: ["HaraldCodec"], path: "Fuzz/FuzzDecode"),
        .testTarget(
            name: "HaraldCodecTests",
            dependencies: [
                "HaraldCodec",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Unit tests, plus integration tests against Bumble that run only when
        // HARALD_BUMBLE_TRANSPORT is set (see scripts/integration).
        .testTarget(
            name: "HaraldHCITests",
            dependencies: [
                "HaraldHCI",
                "HaraldCodec",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
