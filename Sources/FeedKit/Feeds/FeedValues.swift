import Foundation
import PlainText

/// Dates as feeds write them: RFC 822 in its real-world variants, and ISO 8601.
public enum FeedDates {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Zone names seen in feeds, as offsets in minutes.
    private static let zones: [String: Int] = [
        "GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "WET": 0, "WEST": 60, "BST": 60, "IST": 330, "CET": 60, "CEST": 120,
        "MET": 60, "MEST": 120, "MEZ": 60, "MESZ": 120, "EET": 120, "EEST": 180, "MSK": 180, "EST": -300,
        "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420, "AKST": -540,
        "AKDT": -480, "HST": -600, "AST": -240, "ADT": -180, "NST": -210, "NDT": -150, "SGT": 480, "HKT": 480,
        "JST": 540, "KST": 540, "AWST": 480, "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660, "NZST": 720,
        "NZDT": 780,
    ]

    /// A date read from a feed, and the zone it named that is not known (the date
    /// is then taken as UTC, which the reader should say).
    public struct Reading: Sendable, Equatable {
        public var date: Date?
        public var unknownZone: String?
    }

    /// `Mon, 02 Nov 2026 10:00:00 +0000` and its variants (no weekday, a full or
    /// wrong weekday, one-digit days, full month names, two-digit years, no seconds
    /// or no time at all, zone names, `+05:30` or `GMT-01:01`, extra commas and
    /// spaces), or W3C-DTF / ISO 8601 (`2003-12-31T10:14:55Z`, reduced to
    /// `2003-12-31`, `2003-12` or `2003`, or with a space for the `T`); nil
    /// otherwise.
    public static func parse(_ text: String) -> Date? {
        read(text).date
    }

    /// ``parse(_:)``, saying which zone name it did not know. A date past the
    /// year 9999 (`Mon, 01 Jan 10000`) is no date: nothing can store it and read
    /// it back.
    public static func read(_ text: String) -> Reading {
        if let reading = canonical(text) { return reading }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return Reading() }
        let leadingDigits = trimmed.prefix { $0.isASCII && $0.isNumber }.count
        var reading =
            if leadingDigits == 4, let separator = trimmed.dropFirst(4).first, separator == "-" || separator == "/" {
                Reading(date: w3c(trimmed.replacingOccurrences(of: "/", with: "-")) ?? ISO8601.parse(trimmed))
            } else if leadingDigits == 4, trimmed.count == 4 {
                Reading(date: w3c(trimmed))
            } else if leadingDigits == 8, let extended = extended(basic: trimmed) {
                Reading(date: w3c(extended))
            } else {
                rfc822(trimmed)
            }
        if let date = reading.date, !(Self.earliest...Self.latest).contains(date) { reading.date = nil }
        return reading
    }

    /// The dates a feed's may be: years 1 to 9999, what SQLite's date text holds.
    static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    static let latest = Date(timeIntervalSince1970: 253_402_300_799)

    /// W3C-DTF (the ISO 8601 profile feeds use): `YYYY[-MM[-DD[(T| )hh:mm[:ss[.f]][zone]]]]`,
    /// the zone `Z`, `±hh:mm` or `±hhmm`, UTC when absent.
    private static func w3c(_ text: String) -> Date? {
        var rest = Substring(text)
        func number(_ digits: Int) -> Int? {
            let prefix = rest.prefix(digits)
            guard prefix.count == digits, prefix.allSatisfy(\.isASCII), prefix.allSatisfy(\.isNumber) else {
                return nil
            }
            rest = rest.dropFirst(digits)
            return Int(prefix)
        }
        func take(_ character: Character) -> Bool {
            guard rest.first == character else { return false }
            rest = rest.dropFirst()
            return true
        }
        /// A month or a day: two digits, or one where a writer left out the zero.
        func shortNumber() -> Int? {
            let digits = rest.prefix(2).prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return nil }
            rest = rest.dropFirst(digits.count)
            return Int(digits)
        }
        guard let year = number(4) else { return nil }
        var month = 1
        var day = 1
        var hour = 0
        var minute = 0
        var second = 0
        var offset = 0
        var fraction = 0.0
        if take("-") {
            guard let value = shortNumber() else { return nil }
            month = value
            if take("-") {
                guard let value = shortNumber() else { return nil }
                day = value
                if take("T") || take("t") || take(" ") {
                    guard let h = number(2), take(":"), let m = number(2) else { return nil }
                    (hour, minute) = (h, m)
                    if take(":") {
                        guard let value = number(2) else { return nil }
                        second = value
                        if take(".") || take(",") {
                            let digits = rest.prefix { $0.isASCII && $0.isNumber }
                            fraction = Double("0." + digits) ?? 0
                            rest = rest.dropFirst(digits.count)
                        }
                    }
                    rest = rest.drop { $0 == " " }
                    if take("Z") || take("z") {
                    } else if let sign = rest.first, sign == "+" || sign == "-" {
                        rest = rest.dropFirst()
                        guard let h = number(2) else { return nil }
                        _ = take(":")
                        let m = number(2) ?? 0
                        offset = (sign == "-" ? -1 : 1) * (h * 60 + m)
                    }
                }
            }
        }
        guard rest.isEmpty else { return nil }
        return date(year: year, month: month, day: day, time: (hour, minute, second), offset: offset)?
            .addingTimeInterval(fraction)
    }

    /// ISO 8601's basic format (`20040105T101010Z`, `20040105`) in the extended
    /// one W3C-DTF reads; nil when `text` is not that.
    private static func extended(basic text: String) -> String? {
        let characters = Array(text)
        func digits(_ range: Range<Int>) -> String? {
            guard range.upperBound <= characters.count,
                characters[range].allSatisfy({ $0.isASCII && $0.isNumber })
            else { return nil }
            return String(characters[range])
        }
        guard let year = digits(0..<4), let month = digits(4..<6), let day = digits(6..<8) else { return nil }
        var out = "\(year)-\(month)-\(day)"
        guard characters.count > 8 else { return out }
        guard characters[8] == "T" || characters[8] == "t", let hour = digits(9..<11), let minute = digits(11..<13)
        else { return nil }
        out += "T\(hour):\(minute)"
        var index = 13
        if let second = digits(13..<15) {
            out += ":\(second)"
            index = 15
        }
        let zone = String(characters[index...])
        if zone.isEmpty || zone == "Z" || zone == "z" { return out + zone }
        guard let sign = zone.first, sign == "+" || sign == "-", zone.count == 5,
            zone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        return out + zone
    }

    /// The form nearly every feed writes, `Mon, 02 Nov 2026 10:00:00 +0000` (the
    /// weekday may be left out, the day have one digit, the seconds be missing,
    /// the zone be a name ``zones`` knows), read from its bytes; nil for anything
    /// else, which ``rfc822(_:)`` reads the same way, only slower (it splits into
    /// Characters, and it was a twentieth of an update's CPU).
    static func canonical(_ text: String) -> Reading? {
        var bytes = text.utf8[...]
        func letters(_ count: Int) -> Substring.UTF8View.SubSequence? {
            let part = bytes.prefix(count)
            guard part.count == count, part.allSatisfy({ ($0 | 0x20) >= 97 && ($0 | 0x20) <= 122 }) else { return nil }
            bytes = bytes.dropFirst(count)
            return part
        }
        func number(_ counts: ClosedRange<Int>) -> Int? {
            let digits = bytes.prefix(counts.upperBound).prefix { $0 >= 48 && $0 <= 57 }
            guard counts.contains(digits.count) else { return nil }
            bytes = bytes.dropFirst(digits.count)
            return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        func take(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        if bytes.first.map({ $0 >= 65 }) == true {
            guard letters(3) != nil, take(44), take(32) else { return nil }
        }
        guard let day = number(1...2), take(32), let name = letters(3), take(32), let year = number(4...4),
            take(32), let hour = number(2...2), take(58), let minute = number(2...2)
        else { return nil }
        var second = 0
        if take(58) {
            guard let value = number(2...2) else { return nil }
            second = value
        }
        guard take(32), let sign = bytes.first else { return nil }
        let offset: Int
        if sign == 43 || sign == 45 {
            bytes = bytes.dropFirst()
            guard let value = number(4...4) else { return nil }
            offset = (sign == 45 ? -1 : 1) * (value / 100 * 60 + value % 100)
        } else {
            guard let zone = letters(bytes.count),
                let minutes = zones[String(decoding: zone, as: UTF8.self).uppercased()]
            else { return nil }
            offset = minutes
        }
        let month = String(decoding: name, as: UTF8.self).lowercased()
        guard bytes.isEmpty, let index = months.firstIndex(of: month), day >= 1, hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        var reading = Reading(
            date: date(year: year, month: index + 1, day: day, time: (hour, minute, second), offset: offset)
        )
        if let date = reading.date, !(Self.earliest...Self.latest).contains(date) { reading.date = nil }
        return reading
    }

    static func rfc822(_ text: String) -> Reading {
        // RFC 850's `06-Nov-94` is three tokens.
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).flatMap { token in
            token.contains("-") && token.first?.isNumber == true && token.contains(where: \.isLetter)
                ? token.split(separator: "-").map(String.init) : [String(token)]
        }
        var day: Int?
        var month: Int?
        var year: Int?
        var time: (Int, Int, Int)?
        var offset: Int?
        var unknownZone: String?
        for token in tokens {
            if time == nil, token.contains(":"), token.first?.isNumber == true {
                // Seconds may carry a fraction (`10:00:00.000`), dropped.
                let parts = token.split(separator: ":").enumerated().map { index, part in
                    Int(index == 2 ? part.prefix { $0 != "." } : part)
                }
                guard parts.count >= 2, parts.allSatisfy({ $0 != nil }) else { return Reading() }
                time = (parts[0]!, parts[1]!, parts.count > 2 ? parts[2]! : 0)
            } else if let clock = time, let meridiem = meridiem(token) {
                guard (1...12).contains(clock.0) else { return Reading() }
                time = (clock.0 % 12 + (meridiem == "PM" ? 12 : 0), clock.1, clock.2)
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
            } else if offset == nil, year != nil, let minutes = numericOffset(token) {
                offset = minutes
            } else if offset == nil, year != nil, let minutes = zones[token.uppercased()] {
                offset = minutes
            } else if offset == nil, year != nil, token.allSatisfy(\.isLetter), token.count <= 5 {
                unknownZone = token
            }
        }
        guard let day, let month, let year else { return Reading() }
        let clock = time ?? (0, 0, 0)
        guard (0...23).contains(clock.0), (0...59).contains(clock.1), (0...60).contains(clock.2) else {
            return Reading()
        }
        let date = date(year: year, month: month, day: day, time: clock, offset: offset ?? 0)
        return Reading(date: date, unknownZone: date != nil && offset == nil ? unknownZone : nil)
    }

    /// `AM` or `PM` (also `a.m.`, `pm`), in capitals; nil for other tokens.
    private static func meridiem(_ token: String) -> String? {
        let letters = token.uppercased().filter { $0 != "." }
        return letters == "AM" || letters == "PM" ? letters : nil
    }

    /// `+0100`, `-05:30`, `GMT+2`, `UTC-01:01`, `GMT+0100`: minutes east of UTC.
    private static func numericOffset(_ token: String) -> Int? {
        var rest = Substring(token)
        for name in ["GMT", "UTC", "UT"] where rest.uppercased().hasPrefix(name) {
            rest = rest.dropFirst(name.count)
            break
        }
        guard let sign = rest.first, sign == "+" || sign == "-" else { return nil }
        let body = rest.dropFirst()
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        let hours: Int
        let minutes: Int
        if parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]) {
            (hours, minutes) = (h, m)
        } else if parts.count == 1, body.allSatisfy(\.isNumber), let value = Int(body) {
            (hours, minutes) = body.count <= 2 ? (value, 0) : (value / 100, value % 100)
        } else {
            return nil
        }
        guard hours <= 14, minutes < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (hours * 60 + minutes)
    }

    static func date(year: Int, month: Int, day: Int, time: (Int, Int, Int), offset: Int) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        if year >= 1600, year <= 9999 {
            // Arithmetic on days, as Foundation's Gregorian calendar reckons them
            // from 1583 on (before, it is the Julian calendar): a Calendar for each
            // date was a twentieth of an update's CPU. As there, hours and minutes
            // past their range carry over, and a day that is not in the month (or
            // is left by carrying) is no date.
            let zone = abs(offset) <= 18 * 60 ? offset * 60 : 0
            let seconds =
                civilDays(year: year, month: month, day: day) * 86_400 + time.0 * 3600 + time.1 * 60
                + min(time.2, 59)
            guard civilDate(days: Int((Double(seconds) / 86_400).rounded(.down))).day == day else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(seconds - zone))
        }
        return calendarDate(year: year, month: month, day: day, time: time, offset: offset)
    }

    /// ``date(year:month:day:time:offset:)`` through Foundation's Gregorian
    /// calendar, for the years before 1600, and what the day arithmetic is tested
    /// against.
    static func calendarDate(year: Int, month: Int, day: Int, time: (Int, Int, Int), offset: Int) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offset * 60) ?? TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: year,
            month: month,
            day: day,
            hour: time.0,
            minute: time.1,
            second: min(time.2, 59)
        )
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else {
            return nil
        }
        return date
    }
}

extension FeedDates {
    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard
    /// Hinnant's `days_from_civil`); a day past the month's end runs on into the
    /// next.
    static func civilDays(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`).
    static func civilDate(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
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
        return SafeText.line(decoded).split(separator: " ", omittingEmptySubsequences: true).joined(
            separator: " "
        )
    }

    /// A block: tags dropped, paragraphs (`<p>`, `<br>`, `<div>`, headings) kept as
    /// blank lines and line breaks, list items as `- item`, entities decoded,
    /// whitespace inside lines collapsed. In HTML, line breaks of the source are
    /// blanks; text without tags keeps its lines.
    ///
    /// Works on UTF-8 bytes: a feed of thousands of items spends most of its parse
    /// here.
    public static func plain(_ html: String) -> String {
        var source = Array(html.utf8)
        let isHTML = source.contains(UInt8(ascii: "<"))
        var out: [UInt8] = []
        out.reserveCapacity(source.count)
        var index = 0
        let count = source.count
        while index < count {
            let byte = source[index]
            if isHTML, byte == UInt8(ascii: "<"), let close = source[(index + 1)...].firstIndex(of: UInt8(ascii: ">")) {
                var nameStart = index + 1
                let closing = nameStart < close && source[nameStart] == UInt8(ascii: "/")
                if closing { nameStart += 1 }
                var nameEnd = nameStart
                while nameEnd < close, isAlphanumeric(source[nameEnd]) { nameEnd += 1 }
                let name = String(decoding: source[nameStart..<nameEnd], as: UTF8.self).lowercased()
                index = close + 1
                switch name {
                case "br": out.append(newline)
                case "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "table", "tr":
                    out += [newline, newline]
                case "li" where !closing: out += [newline, UInt8(ascii: "-"), space]
                case "script" where !closing, "style" where !closing:
                    // Their content is not text: skip to their end tag.
                    index = endOfElement(name, in: source, from: index)
                default: break
                }
                continue
            }
            if isHTML, byte == newline || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t") {
                out.append(space)
            } else {
                out.append(byte)
            }
            index += 1
        }
        source = []
        let text = SafeText.block(HTMLEntities.decode(String(decoding: out, as: UTF8.self)))
        return collapse(text)
    }

    private static let newline = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " ")

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// Just after `</name...>`, or the end.
    private static func endOfElement(_ name: String, in source: [UInt8], from start: Int) -> Int {
        let tag = Array(("</" + name).utf8)
        var index = start
        while index + tag.count <= source.count {
            if source[index] == UInt8(ascii: "<"),
                zip(source[index..<(index + tag.count)], tag).allSatisfy({ $0 | 0x20 == $1 | 0x20 })
            {
                return source[(index + tag.count)...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? source.count
            }
            index += 1
        }
        return source.count
    }

    /// Blanks collapsed inside lines, lines trimmed, at most one empty line in a row,
    /// none at the ends.
    private static func collapse(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var line: [UInt8] = []
        var emptyLines = 0
        var pendingSpace = false
        func endLine() {
            if line.isEmpty {
                if !out.isEmpty { emptyLines += 1 }
            } else {
                if !out.isEmpty { out += Array(repeating: newline, count: min(emptyLines, 1) + 1) }
                out += line
                emptyLines = 0
            }
            line.removeAll(keepingCapacity: true)
            pendingSpace = false
        }
        for byte in text.utf8 {
            if byte == newline {
                endLine()
            } else if byte == space {
                pendingSpace = !line.isEmpty
            } else {
                if pendingSpace {
                    line.append(space)
                    pendingSpace = false
                }
                line.append(byte)
            }
        }
        endLine()
        return String(decoding: out, as: UTF8.self)
    }
}
