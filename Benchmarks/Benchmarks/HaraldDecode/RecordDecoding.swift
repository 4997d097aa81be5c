import Benchmark
import Clobber

/// One way of decoding one record shape; each conformer becomes one benchmark.
///
/// Conformers are caseless enums with static members so that the measured loop is specialised for
/// each of them: the decoder is called directly, never through a closure or a witness table.
///
/// Every conformer marks `decode` `@inline(never)`, so every way is measured the same way: one
/// direct call per decode, as an app calls a decoder. Left to the optimiser, small decoders (the
/// floors) were inlined into the loop while larger ones (Harald's) were called through the
/// protocol's witness table, which measured the call mechanism rather than the decoding.
protocol RecordDecoding {
    /// What the decoder reads from: `[UInt8]`, `Data`, …
    associatedtype Input
    /// What it produces.
    associatedtype Record

    /// `"<shape>/<way>"`. `scripts/bench` compares every benchmark with the benchmarks of the same
    /// shape whose way ends in `(baseline)` and `(floor)`.
    static var name: String { get }

    /// Turns a sample's wire bytes into this decoder's input (done before measuring).
    static func input(_ bytes: [UInt8]) -> Input

    /// Decodes one record; nil when the bytes are not a valid record. Mark it `@inline(never)`.
    static func decode(_ input: Input) -> Record?
}

/// How every decoding benchmark is measured: wall clock and malloc count only (`cpuTotal` adds
/// mallocs of its own), 1000 decodes per sample.
///
/// `scripts/bench` divides each sample by 1000 to get per-decode figures, so it must match
/// `scalingFactor` here.
var decodeConfiguration: Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 100,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000_000
    )
}

/// Registers the benchmark for `decoder`, after checking that it decodes every sample, and
/// measures it on the first sample.
///
/// Each decode reads a local variable that `clobber` may have changed, as a decoder reads the
/// value it was handed: no retain or release per decode, and nothing the optimiser can hoist out
/// of the loop.
func register<Decoder: RecordDecoding>(_ decoder: Decoder.Type, samples: [[UInt8]]) {
    for (index, bytes) in samples.enumerated() {
        precondition(Decoder.decode(Decoder.input(bytes)) != nil, "\(Decoder.name) rejects sample \(index)")
    }
    let sample = samples[0]
    Benchmark(Decoder.name, configuration: decodeConfiguration) { benchmark in
        var input = Decoder.input(sample)
        for _ in benchmark.scaledIterations {
            clobber(&input)
            blackHole(Decoder.decode(input))
        }
    }
}

/// The harness on its own: the same loop, `clobber`, out-of-line call and `blackHole` as every
/// decoding benchmark, registered through the same `register`, around a decode that only reads the
/// input's length. `scripts/bench_report.py` subtracts its time from every decoding and GoPro
/// figure of the same run before it compares ways with each other.
enum EmptyDecode: RecordDecoding {
    static let name = "Harness/empty decode"
    static func input(_ bytes: [UInt8]) -> [UInt8] { bytes }
    @inline(never)
    static func decode(_ input: [UInt8]) -> Int? { input.count }
}

/// Registers the harness benchmark (see `EmptyDecode`).
func registerHarness() {
    register(EmptyDecode.self, samples: [[0x00]])
}

/// Checks that several ways of decoding a shape agree on every sample, so their benchmarks
/// measure the same work.
func requireAgreement<A: RecordDecoding, B: RecordDecoding>(_ a: A.Type, _ b: B.Type, samples: [[UInt8]])
where A.Record == B.Record, A.Record: Equatable {
    for (index, bytes) in samples.enumerated() {
        let left = A.decode(A.input(bytes)), right = B.decode(B.input(bytes))
        precondition(left == right, "\(A.name) and \(B.name) disagree on sample \(index): \(String(describing: left)) vs \(String(describing: right))")
    }
}
