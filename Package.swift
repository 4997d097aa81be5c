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
        .library(name: "HaraldSimulator", targets: ["HaraldSimulator"]),
        .library(name: "Harald", targets: ["Harald"]),
        .library(name: "HaraldCoreBluetooth", targets: ["HaraldCoreBluetooth"]),
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
        .target(name: "HaraldSimulator", dependencies: ["HaraldCodec"]),
        .target(name: "Harald", dependencies: ["HaraldCodec"]),
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
        .testTarget(name: "HaraldSimulatorTests", dependencies: ["HaraldSimulator"]),
        .testTarget(name: "HaraldTests", dependencies: ["Harald"]),
        // CoreBluetooth backend: logic over protocols shaped like CoreBluetooth's classes; only
        // Apple/SystemCoreBluetooth.swift touches the real framework (checked on Linux by
        // scripts/check-corebluetooth).
        .target(name: "HaraldCoreBluetooth", dependencies: ["Harald", "HaraldCodec"]),
        .testTarget(
            name: "HaraldCoreBluetoothTests",
            dependencies: ["HaraldCoreBluetooth", "Harald", "HaraldCodec", "HaraldSimulator"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
