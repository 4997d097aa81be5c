import Foundation
import HaraldTerminal
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the output streams are connected to: live tables, progress bars and in-place redraws
/// only on a terminal; plain lines when piped.
enum Terminal {
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The terminal's width in columns ($COLUMNS, else the window size of stdout, else 100).
    static var width: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 100
    }
}

/// A progress bar on stderr, redrawn in place; silent unless stderr is a terminal.
struct ProgressDisplay: Sendable {
    let label: String
    let enabled: Bool

    init(_ label: String, enabled: Bool = Terminal.stderrIsTerminal) {
        self.label = label
        self.enabled = enabled
    }

    func show(done: Int, total: Int) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r" + ProgressBar.render(label: label, done: done, total: total) + "\u{1B}[K").utf8))
    }

    /// Erases the bar, so the output that follows starts on a clean line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
