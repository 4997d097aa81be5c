import Benchmark

/// Every decoding benchmark. A new decoder is one file with a `RecordDecoding` conformer plus
/// one `register` line here (grouped by the shape it decodes, so `scripts/bench` compares it
/// with that shape's baseline and floor).
let benchmarks: @Sendable () -> Void = {
    registerHeartRateBenchmarks()
    registerBloodPressureBenchmarks()
    registerHeartRateMeasurementBenchmarks()
    registerBloodPressureMeasurementBenchmarks()
    registerGlucoseMeasurementBenchmarks()
    registerNotificationPathBenchmark()
    registerSimulatorNotificationPathBenchmark()
    registerGoProReceiveBenchmarks()
    registerHarness()
}
