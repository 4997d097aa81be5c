/// A progress bar for long operations: `label [██████░░░░░░] 45% 81/180`.
public enum ProgressBar {
    /// One line of progress; `done` is clamped to 0…total. A zero total shows an empty bar.
    public static func render(label: String, done: Int, total: Int, width: Int = 24) -> String {
        let width = max(1, width)
        let total = max(0, total)
        let done = min(max(0, done), total)
        let filled = total == 0 ? 0 : done * width / total
        let percent = total == 0 ? 0 : done * 100 / total
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let percentText = String(percent).leftPadded(to: 3)
        return "\(label) [\(bar)] \(percentText)% \(done)/\(total)"
    }
}

extension String {
    /// Padded with spaces on the left to `width` characters (unchanged when already as wide).
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    /// Padded with spaces on the right, or cut with `…`, to exactly `width` characters.
    func fitted(to width: Int) -> String {
        guard width > 0 else { return "" }
        if count > width { return String(prefix(width - 1)) + "…" }
        return self + String(repeating: " ", count: width - count)
    }
}
