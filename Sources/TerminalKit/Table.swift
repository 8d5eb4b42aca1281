import PlainText

/// A table of text: columns separated by two spaces, laid out by display width.
public struct Table: Sendable {
    /// One column: its heading, its alignment and how wide it may grow.
    public struct Column: Sendable {
        public var header: String
        public var rightAligned: Bool
        /// Cells wider than this are cut with an ellipsis (the last column takes what
        /// the terminal has left instead).
        public var maxWidth: Int?
        /// Cut at the start (`…/1386867488/1000700000002.mp3`): for paths, whose end
        /// says the most.
        public var keepsEnd: Bool

        public init(_ header: String, rightAligned: Bool = false, maxWidth: Int? = nil, keepsEnd: Bool = false) {
            self.header = header
            self.rightAligned = rightAligned
            self.maxWidth = maxWidth
            self.keepsEnd = keepsEnd
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
        var widths = columns.map { TextLayout.width($0.header) }
        for row in rows {
            for column in 0..<count - 1 {
                let cell = min(TextLayout.width(row[column]), columns[column].maxWidth ?? .max)
                widths[column] = max(widths[column], cell)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for column in 0..<count - 1 {
                let cell = cut(cells[column], widths[column], keepsEnd: columns[column].keepsEnd)
                let padding = String(repeating: " ", count: max(0, widths[column] - TextLayout.width(cell)))
                text += columns[column].rightAligned ? padding + cell : cell + padding
                text += "  "
            }
            let last = cells[count - 1]
            if let width, columns[count - 1].keepsEnd {
                text += cut(last, max(1, width - TextLayout.width(text)), keepsEnd: true)
            } else {
                text += last
            }
            return width.map { TextLayout.truncate(text, toWidth: $0) } ?? text
        }
        let headerLine = line(columns.map(\.header))
        let heading = bold ? Style.bold(headerLine) : headerLine
        return ([heading] + rows.map(line)).joined(separator: "\n")
    }
}

private func cut(_ text: String, _ columns: Int, keepsEnd: Bool) -> String {
    keepsEnd ? TextLayout.truncate(keepingEnd: text, toWidth: columns) : TextLayout.truncate(text, toWidth: columns)
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
