/// A one-line chart of numbers in Unicode block elements (▁▂▃▄▅▆▇█), scaled between the lowest
/// and highest value shown.
enum Sparkline {
    static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The last `width` values as a sparkline, padded on the left to `width` characters.
    static func render(_ values: [Int], width: Int) -> String {
        let shown = values.suffix(max(0, width))
        guard let low = shown.min(), let high = shown.max() else { return String(repeating: " ", count: max(0, width)) }
        let span = high - low
        let bars = shown.map { value -> Character in
            guard span > 0 else { return levels[levels.count / 2] }
            return levels[(value - low) * (levels.count - 1) / span]
        }
        return String(repeating: " ", count: max(0, width) - bars.count) + String(bars)
    }
}
