// swift-tools-version: 6.1
import PackageDescription

// Decoding benchmarks for Harald, kept out of the main package so that ordinary builds and CI do
// not pay for building the benchmark tool. Run them with `./scripts/bench` from the repository root.
let package = Package(
    name: "HaraldBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Harald", path: ".."),
        // Without the explicit trait list the Linux 6.3 manifest asks for swift-runtime-interposer,
        // which the package mirror does not carry.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HaraldDecode",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HaraldCodec", package: "Harald"),
                .product(name: "HaraldProfiles", package: "Harald"),
                .product(name: "HaraldATT", package: "Harald"),
                .product(name: "Harald", package: "Harald"),
                .product(name: "HaraldGoPro", package: "Harald"),
                "Clobber",
            ],
            path: "Benchmarks/HaraldDecode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Protocol cost and fan-in on the simulator: a plain executable (virtual time, CPU time), kept
        // out of Benchmarks/ because the benchmark plugin runs every executable there as a benchmark.
        .executableTarget(
            name: "HaraldSimulation",
            dependencies: [
                .product(name: "Harald", package: "Harald"),
                .product(name: "HaraldATT", package: "Harald"),
                .product(name: "HaraldSimulator", package: "Harald"),
                .product(name: "HaraldGoProSimulation", package: "Harald"),
                .product(name: "HaraldMiBandSimulation", package: "Harald"),
            ],
            path: "Sources/HaraldSimulation"
        ),
        .target(name: "Clobber"),
    ],
    swiftLanguageModes: [.v6]
)
