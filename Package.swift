// swift-tools-version: 6.1
import PackageDescription

// Layers, bottom to top: see ARCHITECTURE.md; the allowed imports are in
// scripts/architecture/layers.txt and checked by scripts/check-architecture.
// The core modules depend on nothing but the standard library (and Foundation where a value
// needs `Data` or `Date`), so they build for iOS as well as for Linux.
let package = Package(
    name: "Harald",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "HaraldCodec", targets: ["HaraldCodec"]),
        .library(name: "HaraldCore", targets: ["HaraldCore"]),
        .library(name: "HaraldAssignedNumbers", targets: ["HaraldAssignedNumbers"]),
        .library(name: "HaraldProfiles", targets: ["HaraldProfiles"]),
        .library(name: "HaraldATT", targets: ["HaraldATT"]),
        .library(name: "HaraldSMP", targets: ["HaraldSMP"]),
        .library(name: "HaraldL2CAP", targets: ["HaraldL2CAP"]),
        .library(name: "Harald", targets: ["Harald"]),
        .library(name: "HaraldGATTLink", targets: ["HaraldGATTLink"]),
        .library(name: "HaraldSimulator", targets: ["HaraldSimulator"]),
        .library(name: "HaraldGoProSimulation", targets: ["HaraldGoProSimulation"]),
        .library(name: "HaraldMiBandSimulation", targets: ["HaraldMiBandSimulation"]),
        .library(name: "HaraldMiBand", targets: ["HaraldMiBand"]),
        .library(name: "HaraldCoreBluetooth", targets: ["HaraldCoreBluetooth"]),
        .library(name: "HaraldHCI", targets: ["HaraldHCI"]),
        .library(name: "HaraldHCIBackend", targets: ["HaraldHCIBackend"]),
        .library(name: "HaraldHeartRateMonitor", targets: ["HaraldHeartRateMonitor"]),
        .library(name: "HaraldGoPro", targets: ["HaraldGoPro"]),
        .library(name: "HaraldAdvertisements", targets: ["HaraldAdvertisements"]),
        .library(name: "HaraldFleet", targets: ["HaraldFleet"]),
        .library(name: "HaraldMQTT", targets: ["HaraldMQTT"]),
        .library(name: "HaraldGateway", targets: ["HaraldGateway"]),
        .executable(name: "harald", targets: ["harald"]),
        // The example app's model (Examples/HeartRateApp), for the Xcode app target that runs it.
        .library(name: "HeartRateAppModel", targets: ["HeartRateAppModel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Deque: the FIFO queues on the notification path (a link's PDUs in flight).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation` (scripts/docs); a plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The MQTT client's TCP (and TLS) channel: no maintained Swift MQTT client is in the mirror.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .target(
            name: "HaraldCodec",
            // Rounding in the IEEE-11073 encoders calls libm, which Linux links only on request.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // The one vocabulary: addresses, RSSI, advertising data, handles, properties, CCCD, ATT
        // error codes, security levels and keys, the lock type.
        .target(name: "HaraldCore", dependencies: ["HaraldCodec"]),
        // The Bluetooth SIG's names for its assigned numbers (UUIDs, companies, appearances):
        // a generated table for tools and logs, which no engine needs.
        .target(name: "HaraldAssignedNumbers", dependencies: ["HaraldCodec"]),
        // The standard SIG characteristics as typed values, plus the UUID → decoder registry behind
        // `harald decode` (which also registers the kits' vendor values).
        .target(name: "HaraldProfiles", dependencies: ["HaraldCodec", "HaraldCore"]),
        // ATT PDUs and the GATT client/server engines over an abstract bearer.
        .target(name: "HaraldATT", dependencies: ["HaraldCodec", "HaraldCore"]),
        // The public API: Central, PeripheralConnection, typed characteristics, flows.
        .target(
            name: "Harald",
            dependencies: ["HaraldCodec", "HaraldCore", "HaraldProfiles", .product(name: "Logging", package: "swift-log")]
        ),
        // GATT and security on one LE link, over Harald's own ATT engine and Security Manager: the
        // connection backend over the GATT client, public definitions served by the GATT server,
        // pairing and bonds; the simulator and the HCI host stack share it (only their bearers differ).
        .target(
            name: "HaraldGATTLink",
            dependencies: ["HaraldCodec", "HaraldCore", "HaraldATT", "HaraldSMP", "Harald", .product(name: "Logging", package: "swift-log")],
            // Its async functions run on their caller's executor (the link's serial domain) instead
            // of hopping to the global one and back: a GATT call crosses this module on its way
            // from the connection to the GATT client, both on that domain.
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]),
        // Virtual clock, link model, virtual peripherals (SIG devices), the simulator backend.
        .target(
            name: "HaraldSimulator",
            dependencies: [
                "HaraldGATTLink", "HaraldCodec", "HaraldCore", "HaraldProfiles", "HaraldATT", "HaraldSMP", "HaraldL2CAP", "Harald",
                .product(name: "DequeModule", package: "swift-collections"),
                // Heap: a scan's next advertising event among thousands of devices.
                .product(name: "HeapModule", package: "swift-collections"),
            ]),
        // The simulator's Open GoPro camera, written from the protocol (not from HaraldGoPro, which
        // its tests check against it).
        .target(name: "HaraldGoProSimulation", dependencies: ["HaraldSimulator", "HaraldATT", "HaraldCodec", "HaraldCore", "Harald"]),
        // The simulator's Mi Band 2, written from the protocol (not from HaraldMiBand), with its own
        // AES-128 for the auth handshake.
        .target(name: "HaraldMiBandSimulation", dependencies: ["HaraldSimulator", "HaraldATT", "HaraldCodec", "HaraldCore", "Harald"]),
        // The Mi Band 2 kit: the band's messages (Protocol/) and the typed API over a connection
        // (Band/). AES-128 for the auth handshake comes from swift-crypto.
        .target(
            name: "HaraldMiBand",
            dependencies: [
                "HaraldCodec", "HaraldCore", "HaraldProfiles", "Harald",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The LE Security Manager: SMP PDUs, the pairing crypto toolbox (AES from swift-crypto,
        // P-256 key agreement) and the pairing procedures; transport-free.
        .target(
            name: "HaraldSMP",
            dependencies: [
                "HaraldCodec", "HaraldCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // L2CAP's connection-oriented channels without a transport: the LE signaling commands,
        // K-frames, credits and the per-link engine of LE Credit Based and Enhanced Credit Based
        // Flow Control Mode; the HCI host and the simulator each carry its PDUs.
        .target(name: "HaraldL2CAP", dependencies: ["HaraldCodec", "HaraldCore"]),
        // The host stack over HCI: transports (TCP, Linux HCI user channel), HCI packets, LE
        // central, ACL/L2CAP fixed channels, btsnoop. POSIX sockets live here and nowhere else.
        .target(name: "HaraldHCI", dependencies: ["HaraldCodec", "HaraldCore", "HaraldL2CAP", .product(name: "Logging", package: "swift-log")]),
        // The Linux backend of the public API: the HCI host stack with the GATT engine on top.
        .target(
            name: "HaraldHCIBackend",
            dependencies: [
                "HaraldGATTLink", "HaraldCore", "Harald", "HaraldATT", "HaraldHCI", "HaraldL2CAP", "HaraldSMP", .product(name: "Logging", package: "swift-log"),
            ]),
        // The heart-rate monitor kit: measurements, control point, battery, pairing, live statistics
        // for any SIG heart-rate sensor, over the public API.
        .target(name: "HaraldHeartRateMonitor", dependencies: ["Harald", "HaraldProfiles", "HaraldCodec", "HaraldCore"]),
        // The Open GoPro BLE protocol without a connection: packet headers, reassembly,
        // fragmentation, command/setting/query messages and the TLV value walker; and, in
        // Camera/, the camera over a PeripheralConnection (requests, pushes, flows).
        .target(name: "HaraldGoPro", dependencies: ["HaraldCodec", "HaraldCore", "Harald"]),
        // Sensor data carried in advertisements as typed readings: BTHome v2 (with its AES-CCM
        // encryption, over swift-crypto's AES block), SIG service data, company names, beacons;
        // and the decoder registry a gateway and the kits extend.
        .target(
            name: "HaraldAdvertisements",
            dependencies: [
                "HaraldCodec", "HaraldCore", "HaraldProfiles", "HaraldAssignedNumbers",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Many gateways hearing the same devices, as one: which gateway owns each device (smoothed
        // RSSI with hysteresis), presence and gateway liveness. Pure logic; times are passed in.
        .target(name: "HaraldFleet", dependencies: ["HaraldCodec", "HaraldCore"]),
        // An MQTT 3.1.1 client on swift-nio (packets, frame decoder, reconnecting client with a
        // bounded outgoing queue); above the BLE stack, it imports no Harald module.
        .target(
            name: "HaraldMQTT",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A BLE-to-MQTT gateway and the fleet view over many of them: advertisements decoded and
        // published in Theengs' topic layout with Home Assistant discovery, and the fleet's
        // arbitration read from and written back to the broker.
        .target(
            name: "HaraldGateway",
            dependencies: ["Harald", "HaraldCodec", "HaraldCore", "HaraldProfiles", "HaraldAdvertisements", "HaraldFleet", "HaraldMQTT"]
        ),
        // Text for terminals, as pure functions of values: SIG-named labels, the live scan table,
        // the GATT tree, sparklines, progress bars (the `harald` CLI's output; unit-tested).
        .target(name: "HaraldTerminal", dependencies: ["HaraldCodec", "HaraldCore", "HaraldProfiles", "HaraldAssignedNumbers"]),
        .executableTarget(
            name: "harald",
            dependencies: [
                "HaraldATT", "HaraldHCI", "HaraldTerminal",
                "HaraldHeartRateMonitor",
                "HaraldCodec", "HaraldCore",
                "HaraldProfiles",
                "Harald",
                "HaraldSimulator",
                "HaraldGoProSimulation",
                "HaraldMiBandSimulation",
                "HaraldHCIBackend",
                "HaraldSMP",
                "HaraldGoPro",
                "HaraldMiBand",
                "HaraldAdvertisements", "HaraldFleet", "HaraldGateway", "HaraldMQTT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Harald's side of the Harald-vs-Bumble benchmark (scripts/bench-bumble).
        .executableTarget(
            name: "HaraldBumbleBench",
            dependencies: [
                "HaraldGATTLink", "Harald", "HaraldATT", "HaraldCodec", "HaraldCore", "HaraldHCI", "HaraldHCIBackend", "HaraldSMP",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fan-in measurement (100 sensors × 50 Hz × 60 s through the public API); run it
        // built in release: `swift build -c release --product HaraldFanIn`.
        .executableTarget(name: "HaraldFanIn", dependencies: ["Harald", "HaraldSimulator"]),
        // The soak run (scripts/soak): connect/discover/subscribe/read/disconnect cycles against a
        // Bumble peer and the simulator, watching memory, descriptors and pending operations.
        .executableTarget(
            name: "HaraldSoak",
            dependencies: [
                "Harald", "HaraldCodec", "HaraldCore", "HaraldGATTLink", "HaraldHCI", "HaraldHCIBackend", "HaraldSimulator",
                "HaraldTestSupport", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fuzz targets (not a product): what each libFuzzer run drives, and what the corpus
        // replay test (HaraldFuzzTests) feeds every committed input to.
        .target(
            name: "HaraldFuzzTargets",
            dependencies: [
                "HaraldCodec", "HaraldCore", "HaraldProfiles", "HaraldATT", "HaraldHCI", "HaraldL2CAP", "HaraldGoPro", "HaraldMiBand", "HaraldSMP",
                "HaraldGATTLink", "HaraldAdvertisements", "HaraldTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/Targets"),
        // libFuzzer entry point, one target per run; inert unless built with -DFUZZING (see scripts/fuzz).
        .executableTarget(name: "FuzzDecode", dependencies: ["HaraldFuzzTargets"], path: "Fuzz/FuzzDecode"),
        // Helpers every test target may share (not a test target itself): the manual clock, the
        // in-memory HCI controllers (FakeController, scripted by each test; VirtualController,
        // with GATT peripherals in range), the scenario peer, a deterministic generator, the hang
        // guard, the CLI runner.
        .target(
            name: "HaraldTestSupport",
            dependencies: [
                "HaraldCodec", "HaraldCore", "HaraldATT", "HaraldHCI", "HaraldL2CAP", "HaraldSMP", "HaraldScenarioSuite", "Harald", "HaraldGATTLink",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HaraldTestSupport"
        ),
        // `import Harald` alone is enough for the types Harald's public API names: this target
        // depends on Harald only, and MemberImportVisibility makes even extension members need
        // their module visible through that one import.
        .testTarget(
            name: "HaraldImportTests", dependencies: ["Harald"],
            swiftSettings: [.enableUpcomingFeature("MemberImportVisibility")]
        ),
        .testTarget(
            name: "HaraldCodecTests",
            dependencies: [
                "HaraldCodec", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "HaraldATTTests",
            dependencies: [
                "HaraldCodec", "HaraldCore",
                "HaraldATT", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The vocabulary: addresses, RSSI, advertising data and beacons, CCCD, properties, handle
        // ranges, security levels and keys, Locked.
        .testTarget(
            name: "HaraldCoreTests",
            dependencies: ["HaraldCodec", "HaraldCore", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "HaraldAssignedNumbersTests", dependencies: ["HaraldCodec", "HaraldAssignedNumbers"]),
        .testTarget(
            name: "HaraldSMPTests",
            dependencies: [
                "HaraldCodec", "HaraldCore", "HaraldSMP", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "HaraldTests", dependencies: ["HaraldCodec", "HaraldCore", "Harald"]),
        .testTarget(
            name: "HaraldAdvertisementsTests",
            dependencies: [
                "HaraldAdvertisements", "HaraldCodec", "HaraldCore", "HaraldProfiles",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "HaraldFleetTests",
            dependencies: ["HaraldFleet", "HaraldCodec", "HaraldCore", .product(name: "PropertyBased", package: "swift-property-based")]),
        // The MQTT packets and frame decoder, the client against an in-process NIO broker, and
        // (when HARALD_MQTT_BROKER is set, see scripts/mosquitto) against a real Mosquitto.
        .testTarget(
            name: "HaraldMQTTTests",
            dependencies: [
                "HaraldMQTT", "HaraldMQTTTestSupport", "HaraldTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // A small MQTT broker on loopback (NIO) for the client's and the gateway's tests.
        .target(
            name: "HaraldMQTTTestSupport",
            dependencies: [
                "HaraldMQTT",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/HaraldMQTTTestSupport"
        ),
        // The gateway's publishing rules fed advertisements by hand, and the gateway and the
        // fleet end to end on the simulator's radio and the loopback broker.
        .testTarget(
            name: "HaraldGatewayTests",
            dependencies: [
                "HaraldGateway", "Harald", "HaraldAdvertisements", "HaraldCodec", "HaraldCore", "HaraldFleet", "HaraldMQTT", "HaraldProfiles",
                "HaraldMQTTTestSupport", "HaraldSimulator", "HaraldTestSupport",
            ]
        ),
        // The credit-based channel engine fed PDUs by hand: every rule of Core Vol 3 Part A §10.1.
        .testTarget(
            name: "HaraldL2CAPTests",
            dependencies: ["HaraldCodec", "HaraldCore", "HaraldL2CAP", .product(name: "PropertyBased", package: "swift-property-based")]),
        // The terminal renderings: labels with SIG names, the scan table, the GATT tree, sparklines.
        .testTarget(name: "HaraldTerminalTests", dependencies: ["HaraldTerminal", "HaraldCodec", "HaraldCore", "HaraldProfiles"]),
        // Every committed fuzz corpus input (Fuzz/corpus/TARGET/) through its target: a crash once
        // found stays fixed.
        .testTarget(name: "HaraldFuzzTests", dependencies: ["HaraldFuzzTargets"]),
        .testTarget(
            name: "HaraldGoProTests",
            dependencies: [
                "HaraldGoPro",
                "HaraldCodec", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Resources/gopro-vectors.json")]
        ),
        // The GoPro camera kit against the simulated camera (virtual time), plus integration tests
        // against the Bumble camera that run only when HARALD_GOPRO_TRANSPORT is set
        // (see scripts/integration).
        .testTarget(
            name: "HaraldGoProCameraTests",
            dependencies: ["HaraldCore", "HaraldGoPro", "Harald", "HaraldSimulator", "HaraldGoProSimulation", "HaraldHCIBackend"]),
        // The Mi Band kit: its messages, the kit against the simulated band in virtual time, and
        // (when HARALD_BUMBLE_TRANSPORT is set) against the Bumble band of scripts/integration.
        .testTarget(
            name: "HaraldMiBandTests",
            dependencies: [
                "HaraldATT", "HaraldProfiles",
                "HaraldMiBand", "Harald", "HaraldSimulator", "HaraldMiBandSimulation", "HaraldCodec", "HaraldCore", "HaraldHCIBackend",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The simulated camera and band against the facts and captures of their protocols (without
        // the kits).
        .testTarget(
            name: "HaraldGoProSimulationTests",
            dependencies: ["HaraldGoProSimulation", "HaraldSimulator", "Harald", "HaraldATT", "HaraldCodec", "HaraldCore", "HaraldTestSupport"]),
        .testTarget(
            name: "HaraldMiBandSimulationTests",
            dependencies: ["HaraldMiBandSimulation", "HaraldSimulator", "Harald", "HaraldATT", "HaraldCodec", "HaraldCore"]),
        .testTarget(
            name: "HaraldSimulatorTests",
            dependencies: [
                "HaraldSimulator", "HaraldGoProSimulation", "HaraldMiBandSimulation", "Harald", "HaraldGATTLink", "HaraldATT", "HaraldCodec", "HaraldCore",
                "HaraldSMP", "HaraldProfiles",
                "HaraldTestSupport",
            ]),
        // The public API's scenario suite, written once (no Testing import: scenarios throw
        // ScenarioFailure) and run by a parameterized test per backend.
        .target(name: "HaraldScenarioSuite", dependencies: ["Harald", "HaraldCodec", "HaraldCore", "HaraldProfiles"], path: "Tests/HaraldScenarioSuite"),
        // The scenario suite against the simulator backend, plus the flows on the simulator.
        .testTarget(
            name: "HaraldScenarioTests",
            dependencies: [
                "HaraldProfiles", "Harald", "HaraldSimulator", "HaraldGoProSimulation", "HaraldMiBandSimulation", "HaraldATT", "HaraldCodec",
                "HaraldCore", "HaraldSMP", "HaraldScenarioSuite", "HaraldTestSupport",
            ]),
        .testTarget(
            name: "HaraldProfilesTests",
            dependencies: [
                "HaraldCodec", "HaraldCore",
                "HaraldProfiles", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Resources/vectors.json")]
        ),
        // CoreBluetooth backend: logic over protocols shaped like CoreBluetooth's classes; only
        // the files under Apple/ touch the real framework (checked on Linux by
        // scripts/check-corebluetooth).
        .target(name: "HaraldCoreBluetooth", dependencies: ["Harald", "HaraldCodec", "HaraldCore"]),
        .testTarget(
            name: "HaraldCoreBluetoothTests",
            dependencies: [
                "HaraldCoreBluetooth", "Harald", "HaraldCodec", "HaraldCore", "HaraldSimulator", "HaraldScenarioSuite", "HaraldHeartRateMonitor",
                "HaraldProfiles",
            ]
        ),
        // Unit tests, plus integration tests against Bumble that run only when
        // HARALD_BUMBLE_TRANSPORT is set (see scripts/integration).
        .testTarget(
            name: "HaraldHCITests",
            dependencies: [
                "HaraldATT", "HaraldProfiles",
                "HaraldHCI", "HaraldL2CAP", "HaraldTestSupport",
                "HaraldCodec", "HaraldCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // The scenario suite over HCICentralBackend against a Bumble scenario peer; runs only when
        // HARALD_SCENARIO_TRANSPORT is set (see scripts/integration).
        .testTarget(
            name: "HaraldHCIBackendTests",
            dependencies: [
                "HaraldGATTLink", "HaraldATT", "HaraldHCIBackend", "HaraldL2CAP", "Harald", "HaraldCodec", "HaraldCore", "HaraldScenarioSuite",
                "HaraldTestSupport", "HaraldSMP", "HaraldHCI", "HaraldHeartRateMonitor", "HaraldProfiles", "HaraldGoPro", "HaraldGoProSimulation",
                "HaraldMiBand", "HaraldMiBandSimulation",
            ]
        ),
        // The heart-rate kit on the simulator's strap (virtual time), its statistics (property tests),
        // and against the Bumble strap when HARALD_BUMBLE_HR_TRANSPORT is set (scripts/integration).
        .testTarget(
            name: "HaraldHeartRateMonitorTests",
            dependencies: [
                "HaraldATT", "HaraldCodec", "HaraldCore", "HaraldProfiles",
                "HaraldHeartRateMonitor", "Harald", "HaraldSimulator", "HaraldHCIBackend", "HaraldTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // Examples/HeartRateApp: the heart-rate app's model, backend-neutral (it takes a Central),
        // built and tested on Linux; its SwiftUI app (App/) is Apple-only and in no target
        // (scripts/check-corebluetooth compiles it against Tools/AppleSurface).
        .target(
            name: "HeartRateAppModel",
            dependencies: ["Harald", "HaraldHeartRateMonitor"],
            path: "Examples/HeartRateApp/Model"),
        // The app's model on the simulator's strap, in virtual time.
        .testTarget(
            name: "HeartRateAppModelTests",
            dependencies: ["HeartRateAppModel", "Harald", "HaraldCodec", "HaraldCore", "HaraldSimulator"],
            path: "Examples/HeartRateApp/Tests"),
    ],
    swiftLanguageModes: [.v6]
)
