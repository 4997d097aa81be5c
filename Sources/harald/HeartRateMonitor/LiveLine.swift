import Foundation

/// Prints status lines: on a terminal one line rewritten in place (carriage return, then erase
/// to the end of the line), elsewhere one line each.
struct LiveLine: Sendable {
    let inPlace: Bool

    func show(_ text: String) {
        if inPlace {
            FileHandle.standardOutput.write(Data(("\r" + text + "\u{1B}[K").utf8))
        } else {
            Output.line(text)
        }
    }

    /// Ends the line being rewritten, so what follows starts on a fresh one.
    func finish() {
        if inPlace { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }
}
