/// Redrawing a block of lines in place on an ANSI terminal: the live scan table.
public enum TerminalFrame {
    /// The escape sequence that replaces the `previousLineCount` lines drawn last (the cursor
    /// sits on the line below them) with `lines`: cursor up, then each line erased to its end,
    /// then everything below erased (a shorter frame leaves nothing behind).
    public static func redraw(_ lines: [String], previousLineCount: Int) -> String {
        var text = previousLineCount > 0 ? "\u{1B}[\(previousLineCount)A\r" : ""
        for line in lines { text += line + "\u{1B}[K\n" }
        return text + "\u{1B}[J"
    }
}
