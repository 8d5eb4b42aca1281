import Foundation
import Testing

@testable import FeedKit

@Suite("Feed parsing")
struct FeedParserTests {
    let base = URL(string: "https://quirks.example/podcast/feed.rss")!

    private func parse(_ name: String, url: URL? = nil) throws -> Feed {
        try FeedParser.parse(try fixture("feeds/\(name)"), url: url ?? base)
    }

    private func date(_ text: String) -> Date? { try? Date(text, strategy: .iso8601) }

    @Test func channelDetailsAndExtensions() throws {
        let feed = try parse("quirks.rss")
        #expect(feed.title == "Quirks & Edges")
        #expect(feed.author == "Quirk Radio")
        #expect(feed.description == "A feed with every quirk.")
        // Relative to the feed's URL; the channel's image, not its <image><title>.
        #expect(feed.artworkURL?.absoluteString == "https://quirks.example/art/cover.jpg")
        #expect(feed.newFeedURL?.absoluteString == "https://quirks.example/new-feed.rss")
        #expect(feed.podcastGUID == "917393e3-1b1e-5cef-ace4-edaa54e1f810")
        #expect(feed.locked == true)
        #expect(
            feed.funding == [Funding(url: URL(string: "https://quirks.example/support")!, text: "Support the show")]
        )
    }

    @Test func itemsAudioIdentityAndPodcasting20() throws {
        let feed = try parse("quirks.rss")
        #expect(feed.items.count == 4)
        #expect(feed.warnings == ["skipped item 4: it has no audio (no enclosure)"])
        let first = feed.items[0]
        #expect(first.guid == "quirk-1")
        // Of two enclosures, the audio one, resolved against the feed URL.
        #expect(
            first.enclosure
                == Enclosure(
                    url: URL(string: "https://quirks.example/audio/one.mp3")!,
                    type: "audio/mpeg",
                    length: 4321
                )
        )
        #expect(first.duration == .seconds(3600))
        // Podcasting 2.0 wins over iTunes for season and episode.
        #expect(first.season == 3 && first.episode == 8)
        #expect(first.chaptersURL?.absoluteString == "https://quirks.example/chapters/one.json")
        #expect(first.transcripts.map(\.type) == ["text/vtt", "application/srt"])
        #expect(first.persons == ["Ada Host"])
        #expect(first.funding.map(\.text) == ["Tip this episode"])
        // No GUID: the enclosure URL is the identity.
        #expect(feed.items[1].guid == "https://cdn.quirks.example/two.mp3")
        // Media RSS alone is enough.
        #expect(feed.items[2].enclosure.url.absoluteString == "https://cdn.quirks.example/three.m4a")
        // Items without their own funding carry the channel's.
        #expect(feed.items[2].funding.map(\.text) == ["Support the show"])
    }

    @Test func htmlBecomesSafePlainText() throws {
        let feed = try parse("quirks.rss")
        #expect(feed.items[0].description == "First paragraph & more.\n\n- one\n- two\n\nLast\nline done.")
        let second = try #require(feed.items[1].description)
        #expect(second == "Plain escaped HTML and \u{201C}quotes\u{201D} \u{2014} and a control escape.")
        #expect(!second.contains("\u{1B}"))
    }

    @Test func datesAndDurationsInTheirVariants() throws {
        let items = try parse("quirks.rss").items
        #expect(items[0].published == date("2026-11-02T10:00:00Z"))
        #expect(items[1].published == date("2026-11-02T09:30:00Z"))
        #expect(items[2].published == date("2026-11-01T13:00:00Z"))
        #expect(items[3].published == date("2026-10-30T12:15:00Z"))
        #expect(items[1].duration == .seconds(45 * 60 + 12))
        #expect(items[2].duration == .seconds(3723))
        #expect(items[3].duration == .milliseconds(1_234_500))
    }

    @Test(arguments: [
        ("Mon, 02 Nov 2026 10:00:00 +0000", "2026-11-02T10:00:00Z"),
        ("Mon, 2 Nov 2026 10:00:00 GMT", "2026-11-02T10:00:00Z"),
        ("02 Nov 2026 10:00 +0530", "2026-11-02T04:30:00Z"),
        ("Monday, 02 November 2026 10:00:00 PST", "2026-11-02T18:00:00Z"),
        ("Mon, 02 Nov 26 10:00:00 Z", "2026-11-02T10:00:00Z"),
        ("Mon,02 Nov 2026 10:00:00 -05:00", "2026-11-02T15:00:00Z"),
        ("2026-11-02T10:00:00Z", "2026-11-02T10:00:00Z"),
        ("2026-11-02T10:00:00.250+01:00", "2026-11-02T09:00:00.250Z"),
    ])
    func rfc822AndISO8601(text: String, expected: String) throws {
        let expectedDate = try #require(
            try? Date(expected, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: expected.contains(".")))
        )
        #expect(FeedDates.parse(text) == expectedDate)
    }

    @Test(arguments: [
        "", "yesterday", "32 Nov 2026 10:00:00 GMT", "Mon, 02 Nov", "99:99", "2003-13", "2004-07-08 25:00",
        // Past what the library can store and read back.
        "Mon, 01 Jan 10000 10:00:00 GMT", "10000-01-01T00:00:00Z",
    ])
    func badDatesAreUnknown(text: String) {
        #expect(FeedDates.parse(text) == nil)
    }

    /// The day arithmetic that replaced a `Calendar` per date gives what Foundation's
    /// Gregorian calendar gives: leap years (1700, 1900, 2000, 2100), days past a
    /// month's end, hours and minutes that carry into the next day, zones on both
    /// sides and one out of range (taken as UTC).
    @Test func dayArithmeticAgreesWithTheGregorianCalendar() {
        let years = [1600, 1700, 1899, 1900, 1969, 1970, 2000, 2024, 2026, 2100, 2400, 9999]
        let times = [(0, 0, 0), (23, 59, 60), (10, 75, 0), (24, 0, 0), (25, 30, 0)]
        var checked = 0
        for year in years {
            for month in 1...12 {
                for day in [1, 28, 29, 30, 31] {
                    for time in times {
                        for offset in [0, 330, -480, 14 * 60, -(19 * 60)] {
                            let got = FeedDates.date(year: year, month: month, day: day, time: time, offset: offset)
                            let want = FeedDates.calendarDate(
                                year: year,
                                month: month,
                                day: day,
                                time: time,
                                offset: offset
                            )
                            #expect(got == want, "\(year)-\(month)-\(day) \(time) \(offset)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 12 * 12 * 5 * 5 * 5)
    }

    /// The byte-level reading of the usual RFC 822 form gives what the general
    /// reader gives, for valid and invalid days, hours, seconds and zones, with
    /// and without a weekday or seconds; what it does not take (a zone it does not
    /// know, two-digit years, a trailing space) is left to the general reader.
    @Test func theUsualFormIsReadAsTheGeneralReaderReadsIt() {
        let weekdays = ["", "Mon, ", "tue, "]
        let days = ["0", "1", "02", "29", "31", "32"]
        let months = ["Jan", "feb", "Nov", "Foo"]
        let years = ["1599", "2024", "2100", "26"]
        let times = ["10:00:00", "23:59:60", "24:00:00", "09:75", "7:00"]
        let zones = ["+0000", "-0530", "+9999", "GMT", "pst", "Z", "XYZ", "+05:30"]
        var taken = 0
        for weekday in weekdays {
            for day in days {
                for month in months {
                    for year in years {
                        for time in times {
                            for zone in zones {
                                let text = "\(weekday)\(day) \(month) \(year) \(time) \(zone)"
                                guard let fast = FeedDates.canonical(text) else { continue }
                                taken += 1
                                var general = FeedDates.rfc822(text)
                                if let date = general.date,
                                    !(FeedDates.earliest...FeedDates.latest).contains(date)
                                {
                                    general.date = nil
                                }
                                #expect(fast == general, "\(text)")
                            }
                        }
                    }
                }
            }
        }
        #expect(taken > 1000)
        #expect(FeedDates.canonical("Mon, 02 Nov 2026 10:00:00 +0000 ") == nil)
        #expect(FeedDates.canonical("Mon, 02 Nov 2026 10:00:00 XYZ") == nil)
        #expect(FeedDates.read("Mon, 02 Nov 2026 10:00:00 XYZ").unknownZone == "XYZ")
    }

    @Test func durationForms() {
        #expect(FeedDurations.parse("90") == .seconds(90))
        #expect(FeedDurations.parse("1:30") == .seconds(90))
        #expect(FeedDurations.parse("01:01:30") == .seconds(3690))
        #expect(FeedDurations.parse("1:75") == nil)
        #expect(FeedDurations.parse("-5") == nil)
        #expect(FeedDurations.parse("soon") == nil)
    }

    @Test func atomWithXMLBase() throws {
        let feed = try parse("atom.xml", url: URL(string: "https://elsewhere.example/feed.xml")!)
        #expect(feed.title == "Atom Loop")
        #expect(feed.author == "Atom Author")
        #expect(feed.description == "An Atom 1.0 podcast")
        #expect(feed.artworkURL?.absoluteString == "https://atom.example/podcast/logo.png")
        #expect(feed.nextPage?.absoluteString == "https://atom.example/podcast/page2.xml")
        #expect(feed.items.count == 2)
        let first = feed.items[0]
        #expect(first.enclosure.url.absoluteString == "https://atom.example/podcast/episodes/one.ogg")
        #expect(first.link?.absoluteString == "https://atom.example/podcast/episodes/one.html")
        #expect(first.guid == "urn:uuid:60a76c80-d399-11d9-b91C-0003939e0af6")
        #expect(first.published == date("2026-11-01T12:00:00Z"))
        #expect(first.description == "Summary with markup")
        #expect(feed.items[1].published == date("2026-10-30T06:00:00Z"))
        #expect(feed.items[1].description == "Content wins")
    }

    @Test func encodingsDeclaredInTheProlog() throws {
        #expect(try parse("latin1.rss").title == "Caf\u{E9} Cr\u{E8}me")
        #expect(try parse("latin1.rss").items.first?.title == "D\u{E9}j\u{E0} vu \u{A7} \u{BD}")
        #expect(try parse("cp1252.rss").title == "\u{201C}Smart\u{201D} \u{2013} Quotes\u{2026}")
        #expect(try parse("cp1252.rss").items.first?.title == "\u{20AC}5 episode")
        #expect(try parse("bom.rss").items.first?.title == "\u{97F3}\u{58F0}")
    }

    @Test func anEntityBombIsRefused() throws {
        let start = ContinuousClock.now
        #expect(throws: FeedParseError.self) { try parse("bomb.rss") }
        // Refused, not expanded: it ends quickly (the expansion would be 3 GB).
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    /// Feeds still declare the namespace by its older GitHub address (gPodder's
    /// podcastparser knows only that one); both are read.
    @Test(arguments: [
        "https://podcastindex.org/namespace/1.0",
        "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md",
    ])
    func chaptersUnderEitherNamespaceAddress(namespace: String) throws {
        let xml = """
            <rss xmlns:podcast="\(namespace)"><channel><title>T</title><item><title>t</title>
            <enclosure url="https://x.example/a.mp3" type="audio/mpeg"/>
            <podcast:chapters url="https://x.example/a.json" type="application/json+chapters"/>
            </item></channel></rss>
            """
        let feed = try FeedParser.parse(Data(xml.utf8), url: base)
        #expect(feed.items.first?.chaptersURL?.absoluteString == "https://x.example/a.json")
    }

    @Test func controlCharactersInTheBytesDoNotStopTheParse() throws {
        let xml =
            "<rss><channel><title>Escape \u{1B}[31mred\u{1B}[0m and bell\u{07}</title><item><title>t</title>"
            + "<enclosure url=\"https://x.example/a.mp3\" type=\"audio/mpeg\"/></item></channel></rss>"
        let feed = try FeedParser.parse(Data(xml.utf8), url: base)
        #expect(feed.title == "Escape [31mred[0m and bell")
        #expect(feed.items.count == 1)
    }

    @Test func notAFeed() {
        #expect(throws: FeedParseError.self) {
            try FeedParser.parse(Data("<html><body>hi</body></html>".utf8), url: base)
        }
        #expect(throws: FeedParseError.self) { try FeedParser.parse(Data("{\"json\": true}".utf8), url: base) }
        #expect(throws: FeedParseError.self) { try FeedParser.parse(Data("<rss><channel><title>x".utf8), url: base) }
    }

    /// A parse error says where: its line and column, and its kind as a code.
    @Test func parseErrorsSayWhere() throws {
        // Cut off on its third line.
        let broken = Data("<rss>\n<channel>\n<title>x".utf8)
        let error = try #require(throws: FeedParseError.self) { try FeedParser.parse(broken, url: base) }
        #expect(error.code == .malformed)
        #expect(error.line == 3)
        #expect(error.column != nil)
        #expect(error.description.hasPrefix("malformed XML at line 3, column "))
        let page = try #require(throws: FeedParseError.self) {
            try FeedParser.parse(Data("<html><body>hi</body></html>".utf8), url: base)
        }
        #expect(page.code == .wrongDocument)
        #expect(page.description.hasPrefix("not an RSS or Atom feed (<html> at line 1"))
        let opml = try #require(throws: FeedParseError.self) { try OPML.parse(Data("<rss/>".utf8)) }
        #expect(opml.code == .wrongDocument && opml.description == "not an OPML file")
    }
}

@Suite("OPML")
struct OPMLTests {
    @Test func exportsOfOtherClientsImport() throws {
        let gpodder = try OPML.parse(try fixture("opml/gpodder.opml"))
        #expect(gpodder.entries.map(\.title) == ["Loopback Radio", "Quirks & Edges"])
        let antennapod = try OPML.parse(try fixture("opml/antennapod.opml"))
        #expect(
            antennapod.entries.map(\.feedURL.absoluteString) == [
                "https://feeds.invalid/1386867488.xml", "https://feeds.invalid/file/atom.xml",
                "https://feeds.invalid/1386867488.xml",
            ]
        )
        #expect(antennapod.problems.count == 1)
        #expect(antennapod.problems.first?.contains("'not a url' is not an http(s) URL") == true)
        let apple = try OPML.parse(try fixture("opml/apple.opml"))
        #expect(apple.entries.map(\.feedURL.absoluteString) == ["https://feeds.invalid/1000000001.xml"])
    }

    @Test func aRoundTripKeepsEveryFeed() throws {
        let entries = [
            OPML.Entry(title: "A & B <\"quoted\">", feedURL: URL(string: "https://a.example/feed?x=1&y=2")!),
            OPML.Entry(title: nil, feedURL: URL(string: "https://b.example/rss")!),
        ]
        let text = OPML.write(entries)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">"))
        let back = try OPML.parse(Data(text.utf8))
        #expect(back.entries == [entries[0], OPML.Entry(title: "https://b.example/rss", feedURL: entries[1].feedURL)])
    }

    @Test func notOPML() {
        #expect(throws: FeedParseError.self) { try OPML.parse(Data("<rss/>".utf8)) }
    }
}
