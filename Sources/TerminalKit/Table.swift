/// A table of text: columns separated by two spaces, laid out by display width.
public struct Table: Sendable {
    /// One column: its heading, its alignment and how wide it may grow.
    public struct Column: Sendable {
        public var header: String
        public var rightAligned: Bool
        /// Cells wider than this are cut with an ellipsis (the last column takes what
        /// the terminal has left instead).
        public var maxWidth: Int?

        public init(_ header: String, rightAligned: Bool = false, maxWidth: Int? = nil) {
            self.header = header
            self.rightAligned = rightAligned
            self.maxWidth = maxWidth
        }
    }

    public var columns: [Column]
    public var rows: [[String]]

    public init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The table as lines: the last column is cut to what `width` leaves (when the
    /// width is known); `bold` sets the heading in bold (SGR).
    public func render(width: Int?, bold: Bool = false) -> String {
        let count = columns.count
        guard count > 0 else { return "" }
        var widths = columns.map { TerminalText.width($0.header) }
        for row in rows {
            for column in 0..<count - 1 {
                let cell = min(TerminalText.width(row[column]), columns[column].maxWidth ?? .max)
                widths[column] = max(widths[column], cell)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for column in 0..<count - 1 {
                let cell = TerminalText.truncate(cells[column], toWidth: widths[column])
                let padding = String(repeating: " ", count: max(0, widths[column] - TerminalText.width(cell)))
                text += columns[column].rightAligned ? padding + cell : cell + padding
                text += "  "
            }
            text += cells[count - 1]
            return width.map { TerminalText.truncate(text, toWidth: $0) } ?? text
        }
        let headerLine = line(columns.map(\.header))
        let heading = bold ? Style.bold(headerLine) : headerLine
        return ([heading] + rows.map(line)).joined(separator: "\n")
    }
}

/// SGR escapes for the little colour feedsh uses; callers decide whether colour is on
/// (``ColorRule``).
public enum Style {
    public static func bold(_ text: String) -> String { "\u{1B}[1m" + text + "\u{1B}[0m" }
    public static func red(_ text: String) -> String { "\u{1B}[31m" + text + "\u{1B}[0m" }
    public static func dim(_ text: String) -> String { "\u{1B}[2m" + text + "\u{1B}[0m" }
}

/// When colour is allowed: on a terminal, without `--no-color`, without `NO_COLOR`
/// (any value, even empty, as no-color.org says) and not on `TERM=dumb`.
public enum ColorRule {
    public static func allows(isTerminal: Bool, noColorFlag: Bool, environment: [String: String]) -> Bool {
        isTerminal && !noColorFlag && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }
}
