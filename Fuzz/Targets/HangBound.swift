import HaraldCore

/// How long an engine target waits for one input's tasks to end before it calls the input a hang
/// and traps.
///
/// Ten seconds while fuzzing: an input normally ends in milliseconds, and libFuzzer should hear
/// of a hang soon. The corpus replay test raises it: there every target replays its corpus at
/// once beside the rest of the suite, and under a sanitizer on a loaded machine the concurrency
/// pool can be kept busy for longer than ten seconds without anything hanging.
public enum FuzzHangBound {
    private static let bound = Locked(10)

    /// The bound, in seconds.
    public static var seconds: Int { bound.value }

    /// Sets the bound to `seconds`.
    public static func set(seconds: Int) { bound.withLock { $0 = seconds } }
}
