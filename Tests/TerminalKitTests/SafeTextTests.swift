import Foundation
import PlainText
import Testing

@testable import TerminalKit

@Suite("Safe text and its columns")
struct SafeTextTests {
    @Test(arguments: [
        ("plain", "plain"),
        ("red \u{1B}[31mtext\u{1B}[0m", "red text"),
        ("title \u{1B}]0;pwned\u{07}set", "title set"),
        ("title \u{1B}]8;;http://x\u{1B}\\link\u{1B}]8;;\u{1B}\\", "title link"),
        ("dcs \u{1B}Pq#0;2;0;0;0\u{1B}\\end", "dcs end"),
        ("c1 \u{9B}2Jcsi", "c1 csi"),
        ("charset \u{1B}(Bok", "charset ok"),
        ("bell\u{07} nul\u{00} del\u{7F} bs\u{08}", "bell nul del bs"),
        ("tab\there", "tab here"),
        ("two\nlines\r\nthree\rfour", "two lines three four"),
        ("bidi \u{202E}txt.exe\u{202C}", "bidi txt.exe"),
        (
            "nbsp\u{00A0}zw\u{200B}quotes \u{201C}x\u{201D} caf\u{E9} \u{97F3} \u{1F399}\u{FE0F}",
            "nbsp\u{00A0}zw\u{200B}quotes \u{201C}x\u{201D} caf\u{E9} \u{97F3} \u{1F399}\u{FE0F}"
        ),
        ("trailing escape \u{1B}", "trailing escape "),
        ("unterminated osc \u{1B}]0;never ends", "unterminated osc "),
    ])
    func lineRemovesControlsAndKeepsPrintables(input: String, expected: String) {
        #expect(SafeText.line(input) == expected)
    }

    @Test func blockKeepsLineBreaks() {
        #expect(SafeText.block("a\r\nb\rc\nd\u{2028}e\u{1B}[1m") == "a\nb\nc\nd\ne")
    }

    @Test(arguments: [
        ("abc", 3), ("caf\u{E9}", 4), ("cafe\u{301}", 4), ("\u{97F3}\u{58F0}", 4),
        ("\u{1F399}\u{FE0F}", 2), ("\u{1F600}", 2), ("zero\u{200B}width", 9), ("", 0),
        ("#\u{FE0F}\u{20E3}", 2), ("tab\tx", 4), ("a\r\nb", 2), ("bell\u{07}", 4),
    ])
    func measuresColumns(text: String, width: Int) {
        #expect(TextLayout.width(text) == width)
    }

    /// ASCII is measured by its bytes; it measures as Unicode's properties say.
    @Test func asciiMeasuresAsItsUnicodePropertiesSay() {
        for value in UInt8(0)...0x7F {
            let scalar = Unicode.Scalar(value)
            let zeroWidth: [Unicode.GeneralCategory] = [.control, .format, .nonspacingMark, .enclosingMark]
            let expected =
                scalar.properties.isEmojiPresentation
                ? 2 : zeroWidth.contains(scalar.properties.generalCategory) ? 0 : 1
            #expect(TextLayout.width(of: Character(scalar)) == expected, "\(value)")
            #expect(TextLayout.width("a\(Character(scalar))b") == expected + 2, "\(value)")
        }
    }

    @Test func truncatesByColumnsWithEllipsis() {
        #expect(TextLayout.truncate("Hello, world", toWidth: 20) == "Hello, world")
        #expect(TextLayout.truncate("Hello, world", toWidth: 12) == "Hello, world")
        #expect(TextLayout.truncate("Hello, world", toWidth: 6) == "Hello…")
        #expect(TextLayout.truncate("\u{97F3}\u{58F0}\u{30C6}\u{30B9}", toWidth: 6) == "\u{97F3}\u{58F0}…")
        #expect(TextLayout.truncate("\u{97F3}\u{58F0}\u{30C6}\u{30B9}", toWidth: 5) == "\u{97F3}\u{58F0}…")
        #expect(TextLayout.truncate("abc", toWidth: 0) == "")
    }
}

@Suite("Safe lines")
struct SafeLineTests {
    /// What is interpolated loses escapes, controls and line breaks; the literal
    /// text around it is ours and kept.
    @Test func interpolatedValuesAreMadeSafeAndLiteralsKept() {
        let title = "Evil\u{1B}]0;pwned\u{07} title\nsecond line\u{202E}"
        let line: SafeLine = "deleted 3: \(title) (\(42))"
        #expect(line.description == "deleted 3: Evil title second line (42)")
    }

    /// A safe line inside another is taken as it is, and lines join with breaks.
    @Test func safeLinesNestAndJoin() {
        let inner: SafeLine = "queued \("a\u{1B}[31mb")"
        let outer: SafeLine = "\(inner); the queue has \(2)"
        #expect(outer.description == "queued ab; the queue has 2")
        #expect(SafeLine.lines([inner, "done"]) == "queued ab\ndone")
    }
}

@Suite("Formatting")
struct FormattingTests {
    @Test(arguments: [
        (Duration.seconds(0), "0:00"), (.seconds(59), "0:59"), (.seconds(61), "1:01"),
        (.seconds(3599), "59:59"), (.seconds(3600), "1:00:00"), (.milliseconds(4_021_999), "1:07:01"),
        (.seconds(36_000 + 62), "10:01:02"), (.seconds(604_800), "168:00:00"), (.seconds(604_801), "?"),
        (.seconds(-1), "?"),
    ])
    func durations(duration: Duration, text: String) {
        #expect(Formatting.duration(duration) == text)
    }

    @Test func datesInTheGivenZone() throws {
        let date = try #require(ISO8601Parse("2026-11-02T01:30:00Z"))
        #expect(Formatting.date(date, timeZone: TimeZone(identifier: "UTC")!) == "2026-11-02")
        #expect(Formatting.date(date, timeZone: TimeZone(identifier: "America/New_York")!) == "2026-11-01")
    }

    /// The day is the one Foundation's Calendar gives, in zones east and west,
    /// across daylight saving's changes, before 1970 and past 2038.
    @Test(arguments: ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Kiritimati"])
    func datesAreTheCalendarsDays(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Every 7 hours and a minute from 1960 to 2060.
        for step in stride(from: -315_619_200.0, to: 2_840_140_800, by: 25_260 * 37) {
            let date = Date(timeIntervalSince1970: step)
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let expected = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
            #expect(Formatting.date(date, timeZone: timeZone) == expected, "\(date)")
        }
    }

    /// A date no feed means (a parser's overflow, a year past 9999) reads `?`, not a
    /// crash.
    @Test func aDateOutOfRangeReadsAQuestionMark() {
        for seconds in [Double.infinity, -.infinity, .nan, 1e300, -1e300, 253_402_300_800] {
            #expect(Formatting.date(Date(timeIntervalSince1970: seconds), timeZone: .gmt) == "?", "\(seconds)")
        }
        #expect(Formatting.date(Date(timeIntervalSince1970: -62_135_596_800 + 86_400), timeZone: .gmt) == "0001-01-02")
    }
}

func ISO8601Parse(_ text: String) -> Date? {
    try? Date(text, strategy: .iso8601)
}
