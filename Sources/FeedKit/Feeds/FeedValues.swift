import Foundation
import TerminalKit

/// Dates as feeds write them: RFC 822 in its real-world variants, and ISO 8601.
public enum FeedDates {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Zone names seen in feeds, as offsets in minutes.
    private static let zones: [String: Int] = [
        "GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420,
        "MDT": -360, "PST": -480, "PDT": -420, "BST": 60, "CET": 60, "CEST": 120, "IST": 330, "JST": 540,
        "AEST": 600, "AEDT": 660,
    ]

    /// `Mon, 02 Nov 2026 10:00:00 +0000` and its variants (no weekday, a full or
    /// wrong weekday, one-digit days, full month names, two-digit years, no seconds,
    /// zone names or `+05:30`, extra commas and spaces), or ISO 8601; nil otherwise.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if let first = trimmed.first, first.isNumber, trimmed.contains("-"), let date = ISO8601.parse(trimmed) {
            return date
        }
        return rfc822(trimmed) ?? ISO8601.parse(trimmed)
    }

    private static func rfc822(_ text: String) -> Date? {
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        var offset: Int?
        for token in tokens {
            if time == nil, token.contains(":") {
                let parts = token.split(separator: ":").map { Int($0) }
                guard parts.count >= 2, parts.allSatisfy({ $0 != nil }) else { return nil }
                time = (parts[0]!, parts[1]!, parts.count > 2 ? parts[2]! : 0)
            } else if let number = Int(token), !token.hasPrefix("+"), !token.hasPrefix("-") {
                if day == nil, month == nil || token.count <= 2, number >= 1, number <= 31, year == nil,
                    token.count <= 2
                {
                    day = number
                } else if year == nil {
                    year = token.count == 2 ? (number < 50 ? 2000 + number : 1900 + number) : number
                }
            } else if month == nil, let index = months.firstIndex(of: String(token.lowercased().prefix(3))),
                token.count >= 3, token.allSatisfy(\.isLetter)
            {
                month = index + 1
            } else if (token.hasPrefix("+") || token.hasPrefix("-")), time != nil {
                let digits = token.dropFirst().filter(\.isNumber)
                guard digits.count == 4, let value = Int(digits) else { continue }
                let minutes = value / 100 * 60 + value % 100
                offset = token.hasPrefix("-") ? -minutes : minutes
            } else if time != nil, offset == nil, let minutes = zones[token.uppercased()] {
                offset = minutes
            }
        }
        guard let day, let month, let year, let time, (0...23).contains(time.0), (0...59).contains(time.1),
            (0...60).contains(time.2)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: (offset ?? 0) * 60) ?? TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: year,
            month: month,
            day: day,
            hour: time.0,
            minute: time.1,
            second: min(time.2, 59)
        )
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date
    }
}

/// `itunes:duration`: seconds (`3600`, `3600.5`), `MM:SS` or `HH:MM:SS`.
public enum FeedDurations {
    public static func parse(_ text: String) -> Duration? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ":",
            omittingEmptySubsequences: false
        )
        guard (1...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            // Minutes and seconds after the first field stay under 60.
            if index > 0, value >= 60 { return nil }
            seconds = seconds * 60 + value
        }
        return Duration.plausible(milliseconds: seconds * 1000)
    }
}

/// Feed text made plain and safe: HTML and CDATA become paragraphs and list items,
/// entities are decoded, and nothing that steers a terminal is left.
public enum FeedText {
    /// One line: whitespace collapsed.
    public static func line(_ text: String) -> String {
        let decoded = HTMLEntities.decode(text)
        return TerminalText.line(decoded).split(separator: " ", omittingEmptySubsequences: true).joined(
            separator: " "
        )
    }

    /// A block: tags dropped, paragraphs (`<p>`, `<br>`, `<div>`, headings) kept as
    /// blank lines and line breaks, list items as `- item`, entities decoded,
    /// whitespace inside lines collapsed.
    public static func plain(_ html: String) -> String {
        var out = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }
                let closing = tag.hasPrefix("/")
                switch name {
                case "br": out += "\n"
                case "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "table", "tr":
                    out += "\n\n"
                case "li": if !closing { out += "\n- " }
                case "script", "style":
                    // Their content is not text.
                    if !closing,
                        let end = html.range(of: "</\(name)", options: .caseInsensitive, range: close..<html.endIndex)
                    {
                        index =
                            html[end.upperBound...].firstIndex(of: ">").map { html.index(after: $0) } ?? html.endIndex
                        continue
                    }
                default: break
                }
                index = html.index(after: close)
                continue
            }
            out.append(character)
            index = html.index(after: index)
        }
        let text = TerminalText.block(HTMLEntities.decode(out))
        // Collapse blanks within lines, trim lines, and keep at most one empty line.
        var lines: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if line.isEmpty, lines.last?.isEmpty ?? true { continue }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}
