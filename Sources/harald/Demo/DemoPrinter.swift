import Foundation
import HaraldSimulator

/// Prints the demo's lines, each prefixed with the time since the demo started (virtual time
/// on the simulator, real time on a radio).
struct DemoPrinter: Sendable {
    private let elapsed: @Sendable () -> Duration
    /// Whether stdout is a terminal: then live lines are rewritten in place and paced so a
    /// person can follow them.
    let isTerminal: Bool

    init(clock: VirtualClock) {
        elapsed = { clock.now.sinceStart }
        isTerminal = isatty(STDOUT_FILENO) == 1
    }

    init(since start: ContinuousClock.Instant) {
        elapsed = { ContinuousClock.now - start }
        isTerminal = isatty(STDOUT_FILENO) == 1
    }

    func callAsFunction(_ line: String) {
        print(prefix + line)
    }

    /// A line that replaces the previous live line on a terminal (call ``endLive()`` after the
    /// last one); elsewhere an ordinary line.
    func live(_ line: String) {
        guard isTerminal else { return self(line) }
        FileHandle.standardOutput.write(Data(("\r" + prefix + line + "\u{1B}[K").utf8))
        // Virtual time runs far faster than anyone reads: hold each update briefly.
        usleep(150_000)
    }

    /// Ends a run of live lines.
    func endLive() {
        if isTerminal { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }

    private var prefix: String {
        let time = elapsed()
        let milliseconds = time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000
        return String(format: "[t+%6lld.%03lld s] ", milliseconds / 1000, milliseconds % 1000)
    }
}
