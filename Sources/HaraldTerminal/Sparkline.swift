/// A one-line chart of numbers in Unicode block elements (▁▂▃▄▅▆▇█), scaled between the lowest
/// and highest value shown.
public enum Sparkline {
    /// The eight bar heights, lowest first.
    public static let levels: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]

    /// The last `width` values as a sparkline, padded on the left to `width` characters. When
    /// every value shown is the same, every bar is half height.
    public static func render(_ values: [Double], width: Int) -> String {
        let width = max(0, width)
        let shown = values.suffix(width).filter(\.isFinite)
        guard let low = shown.min(), let high = shown.max() else { return String(repeating: " ", count: width) }
        let span = high - low
        let bars = shown.map { value -> Character in
            guard span > 0 else { return levels[levels.count / 2] }
            let level = Int(((value - low) / span * Double(levels.count - 1)).rounded(.down))
            return levels[min(levels.count - 1, max(0, level))]
        }
        return String(repeating: " ", count: width - bars.count) + String(bars)
    }

    /// The same for whole numbers (beats per minute, counts).
    public static func render(_ values: [Int], width: Int) -> String {
        render(values.map(Double.init), width: width)
    }
}
