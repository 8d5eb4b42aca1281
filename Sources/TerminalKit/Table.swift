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
        /// How the column gives way when the table is wider than the terminal
        /// (nil: it keeps its width, and the line is cut at the end as before).
        public var fit: Fit?
        /// On a terminal (a known width), a cell wider than its column goes on
        /// under itself, broken between words (a word wider than the column
        /// between characters), and the row takes more lines, instead of being
        /// cut: for titles and notes, whose every word counts.
        public var wraps: Bool

        public init(
            _ header: String,
            rightAligned: Bool = false,
            maxWidth: Int? = nil,
            keepsEnd: Bool = false,
            wraps: Bool = false,
            fit: Fit? = nil
        ) {
            self.header = header
            self.rightAligned = rightAligned
            self.maxWidth = maxWidth
            self.keepsEnd = keepsEnd
            self.wraps = wraps
            self.fit = fit
        }
    }

    /// How a column gives way to a narrow terminal. The steps of every column
    /// run in the order of their numbers, lowest first, while the table is too
    /// wide: at `order` the column shrinks, down to `minWidth`; at `dropOrder`
    /// (when it has one) it leaves. What a column that left frees goes back to
    /// those that shrank, the last to give way first. So a column of paths can
    /// shrink a little, then go, before a column of titles loses its words.
    public struct Fit: Sendable {
        public var order: Int
        public var minWidth: Int
        public var dropOrder: Int?

        public init(order: Int, minWidth: Int, dropOrder: Int? = nil) {
            self.order = order
            self.minWidth = minWidth
            self.dropOrder = dropOrder
        }
    }

    public var columns: [Column]
    public var rows: [[String]]

    public init(columns: [Column], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    /// The table as lines: the last column is cut to what `width` leaves (when the
    /// width is known), after the columns that give way (``Fit``) did, and a
    /// column that ``Column/wraps`` goes on under itself instead;
    /// `bold` sets the heading in bold (SGR).
    public func render(width: Int?, bold: Bool = false) -> String {
        guard !columns.isEmpty else { return "" }
        let (kept, widths) = layout(width: width)
        let last = kept[kept.count - 1]
        // Where the last column starts; it takes what the line has left.
        let lastStart = kept.dropLast().reduce(0) { $0 + widths[$1] + 2 }
        func lines(_ cells: [String]) -> [String] {
            // Each shown column's lines, the row as tall as the tallest.
            var stacks: [[String]] = []
            for column in kept.dropLast() {
                let spec = columns[column]
                if width != nil, spec.wraps, TextLayout.width(cells[column]) > widths[column] {
                    stacks.append(
                        TextLayout.wrap(cells[column], toWidth: widths[column]).split(separator: "\n").map(String.init)
                    )
                } else {
                    stacks.append([cut(cells[column], widths[column], keepsEnd: spec.keepsEnd)])
                }
            }
            if let width, columns[last].keepsEnd {
                stacks.append([cut(cells[last], max(1, width - lastStart), keepsEnd: true)])
            } else if let width, columns[last].wraps, width - lastStart >= 8 {
                stacks.append(
                    TextLayout.wrap(cells[last], toWidth: width - lastStart).split(separator: "\n").map(String.init)
                )
            } else {
                stacks.append([cells[last]])
            }
            let height = stacks.map(\.count).max() ?? 1
            return (0..<height).map { row in
                var text = ""
                for (index, column) in kept.dropLast().enumerated() {
                    let cell = row < stacks[index].count ? stacks[index][row] : ""
                    let padding = String(repeating: " ", count: max(0, widths[column] - TextLayout.width(cell)))
                    text += columns[column].rightAligned ? padding + cell : cell + padding
                    text += "  "
                }
                text += row < stacks[kept.count - 1].count ? stacks[kept.count - 1][row] : ""
                // A continuation that is only padding ends where its text does.
                if row > 0 { text = String(text.reversed().drop { $0 == " " }.reversed()) }
                return width.map { TextLayout.truncate(text, toWidth: $0) } ?? text
            }
        }
        let headerLine = lines(columns.map(\.header)).joined(separator: "\n")
        var out = bold ? Style.bold(headerLine) : headerLine
        guard width == nil else {
            for cells in rows {
                for line in lines(cells) {
                    out += "\n"
                    out += line
                }
            }
            return out
        }
        // Not on a terminal, every row is one line (nothing wraps, nothing is cut to
        // a width): written straight into the text's bytes, as `lines` would make it,
        // for `new` of 10,000 episodes piped to a program. A String took some three
        // hundred instructions for each of its 140,000 appends.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(out.utf8.count + rows.count * (lastStart + 32))
        func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: text.utf8)
            }
        }
        func append(blanksOf count: Int) {
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, count)))
        }
        append(out)
        for cells in rows {
            bytes.append(UInt8(ascii: "\n"))
            for column in kept.dropLast() {
                // Measured once: a cell that fits (most) is neither cut nor measured again.
                var cell = cells[column]
                var cellWidth = TextLayout.width(cell)
                if cellWidth > widths[column] {
                    cell = cut(cell, widths[column], keepsEnd: columns[column].keepsEnd)
                    cellWidth = TextLayout.width(cell)
                }
                let padding = widths[column] - cellWidth
                if columns[column].rightAligned {
                    append(blanksOf: padding)
                    append(cell)
                } else {
                    append(cell)
                    append(blanksOf: padding)
                }
                append(blanksOf: 2)
            }
            append(cells[last])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Which columns show at `width`, and how wide each is: its widest cell (at
    /// most its `maxWidth`), less what it gave way (``Fit``). The last one shown
    /// takes what is left.
    private func layout(width: Int?) -> (kept: [Int], widths: [Int]) {
        var natural = columns.map { TextLayout.width($0.header) }
        for row in rows {
            for column in columns.indices {
                natural[column] = max(
                    natural[column],
                    min(TextLayout.width(row[column]), columns[column].maxWidth ?? .max)
                )
            }
        }
        var kept = Array(columns.indices)
        var widths = natural
        // Each column's steps: (number, column, leaves).
        var steps: [(order: Int, column: Int, drop: Bool)] = []
        for (column, spec) in columns.enumerated() {
            guard let fit = spec.fit else { continue }
            steps.append((fit.order, column, false))
            if let drop = fit.dropOrder { steps.append((drop, column, true)) }
        }
        guard let width, !steps.isEmpty else { return (kept, widths) }
        steps.sort { ($0.order, $0.column) < ($1.order, $1.column) }
        func excess() -> Int { kept.reduce(0) { $0 + widths[$1] } + 2 * (kept.count - 1) - width }
        var shrunk: [Int] = []
        for step in steps where excess() > 0 {
            if step.drop {
                if kept.count > 1 { kept.removeAll { $0 == step.column } }
            } else {
                let floor = min(columns[step.column].fit!.minWidth, natural[step.column])
                widths[step.column] = max(floor, widths[step.column] - excess())
                shrunk.append(step.column)
            }
        }
        // What a dropped column left goes back to those that shrank, the last to
        // give way first.
        for column in shrunk.reversed() where kept.contains(column) && excess() < 0 {
            widths[column] = min(natural[column], widths[column] - excess())
        }
        return (kept, widths)
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
