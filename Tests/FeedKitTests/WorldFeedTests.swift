import FixtureServer
import Foundation
import HTTPSupport
import Testing

@testable import FeedKit

/// Feeds as the world writes them (`Fixtures/feeds/world.*`), where a widely used
/// parser and feedsh disagreed and feedsh was wrong.
@Suite("Feeds as the world writes them")
struct WorldFeedTests {
    static let base = URL(string: "https://world.invalid/feed")!

    static func date(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains(".")))
    }

    /// Titles: xhtml and html Atom titles as plain text; an `<image>` or `<source>`
    /// title does not win over the feed's or entry's own; `media:title` and
    /// `dc:title` stand in when an item has no title.
    @Test func titles() throws {
        let atom = try FeedParser.parse(try fixture("feeds/world.atom"), url: Self.base)
        #expect(atom.title == "The World as Written")
        #expect(atom.items.map(\.title) == ["Bold & bright", "An xhtml title", "Only a media title"])
        let rss = try FeedParser.parse(try fixture("feeds/world.rss"), url: Self.base)
        #expect(rss.title == "Dates as the World Writes Them")
        #expect(rss.items.first?.title == "Only a Dublin Core title")
    }

    /// Dates: without a time, a space for the `T`, reduced W3C-DTF forms, named
    /// zones, `GMT-01:01`; an unknown zone is UTC with a warning.
    @Test func dates() throws {
        let atom = try FeedParser.parse(try fixture("feeds/world.atom"), url: Self.base)
        #expect(
            atom.items.map(\.published) == [
                Self.date("2004-07-08T23:56:58Z"), Self.date("2003-12-01T00:00:00Z"), Self.date("2003-01-01T00:00:00Z"),
            ]
        )
        let rss = try FeedParser.parse(try fixture("feeds/world.rss"), url: Self.base)
        #expect(
            rss.items.map(\.published) == [
                Self.date("2004-01-01T00:00:00Z"), Self.date("2004-07-08T21:56:58Z"),
                Self.date("2004-07-08T23:56:58.500Z"), Self.date("2004-07-08T22:56:58Z"),
                Self.date("2004-07-08T21:56:58Z"), Self.date("2004-07-09T00:57:58Z"),
                Self.date("2004-07-08T23:56:58Z"),
            ]
        )
        #expect(rss.warnings == ["item 7: unknown time zone 'XYZT' in 'Thu, 08 Jul 2004 23:56:58 XYZT', taken as UTC"])
    }

    @Test(arguments: [
        ("2003-12-31", "2003-12-31T00:00:00Z"), ("2003-12", "2003-12-01T00:00:00Z"), ("2003", "2003-01-01T00:00:00Z"),
        ("2004-07-08 23:56:58", "2004-07-08T23:56:58Z"), ("2004-07-08 23:56:58Z", "2004-07-08T23:56:58Z"),
        ("2004-07-08 23:56:58 -0500", "2004-07-09T04:56:58Z"), ("Thu, 01 Jan 2004", "2004-01-01T00:00:00Z"),
        ("Thu, 08 Jul 2004 23:56:58 MEST", "2004-07-08T21:56:58Z"), ("8 Jul 2004 23:56 GMT+2", "2004-07-08T21:56:00Z"),
        // RFC 850, fractional seconds, a 12-hour clock, ISO 8601's basic format,
        // a month without its zero, slashes.
        ("Sunday, 06-Nov-94 08:49:37 GMT", "1994-11-06T08:49:37Z"),
        ("Mon, 01 Jan 2024 10:00:00.000 GMT", "2024-01-01T10:00:00Z"),
        ("Mon, 01 Jan 2024 10:00 PM EST", "2024-01-02T03:00:00Z"),
        ("Mon, 01 Jan 2024 12:30 a.m. GMT", "2024-01-01T00:30:00Z"),
        ("20040105T101010Z", "2004-01-05T10:10:10Z"), ("20040105T1010+0100", "2004-01-05T09:10:00Z"),
        ("20040105", "2004-01-05T00:00:00Z"), ("2024-1-5", "2024-01-05T00:00:00Z"),
        ("2024/01/05 10:00:00", "2024-01-05T10:00:00Z"),
    ])
    func oneDate(text: String, expected: String) {
        #expect(FeedDates.parse(text) == Self.date(expected))
    }

    @Test(arguments: ["Mon, 01 Jan 2024 13:00 PM GMT", "20040105T10", "2004010", "20040105X1010"])
    func notQuiteADate(text: String) {
        #expect(FeedDates.parse(text) == nil)
    }

    /// RSS 2.0 whose root declares a default namespace (UserLand's, as some
    /// generators still write it): its elements are RSS's own.
    @Test func rssInADefaultNamespace() throws {
        let feed = try FeedParser.parse(
            Data(
                """
                <rss xmlns="http://backend.userland.com/rss2" version="2.0"><channel><title>Namespaced</title>
                <item><title>One</title><guid>g1</guid><pubDate>Thu, 08 Jul 2004 23:56:58 GMT</pubDate>
                <enclosure url="https://media.invalid/1.mp3" type="audio/mpeg" length="10"/></item>
                </channel></rss>
                """.utf8
            ),
            url: Self.base
        )
        #expect(feed.title == "Namespaced")
        #expect(feed.items.map(\.title) == ["One"])
        #expect(feed.items.first?.guid == "g1")
        #expect(feed.items.first?.published == Self.date("2004-07-08T23:56:58Z"))
    }

    /// Atom 0.3 (its own namespace, `issued`, `tagline`): text constructs in
    /// `mode="base64"` are decoded, `mode="escaped"` read as HTML.
    @Test func atomZeroThreeModes() throws {
        let notes = Data("<p>Notes &amp; more</p>".utf8).base64EncodedString()
        let feed = try FeedParser.parse(
            Data(
                """
                <feed version="0.3" xmlns="http://purl.org/atom/ns#"><title mode="escaped" type="text/html">&lt;b&gt;Old&lt;/b&gt; Atom</title>
                <tagline>From 2004</tagline>
                <entry><title mode="base64">\(Data("Encoded & titled".utf8).base64EncodedString())</title>
                <id>urn:old:1</id><issued>2004-07-08T23:56:58Z</issued><modified>2004-07-09T00:00:00Z</modified>
                <content type="text/html" mode="base64">\(notes)</content>
                <link rel="enclosure" href="https://media.invalid/old.mp3" type="audio/mpeg"/></entry>
                </feed>
                """.utf8
            ),
            url: Self.base
        )
        #expect(feed.title == "Old Atom")
        #expect(feed.description == "From 2004")
        #expect(feed.items.map(\.title) == ["Encoded & titled"])
        #expect(feed.items.first?.description == "Notes & more")
        #expect(feed.items.first?.published == Self.date("2004-07-08T23:56:58Z"))
    }

    /// HTML's entities and bare ampersands, which XML refuses and feeds are
    /// full of (libxml2 stopped at the first, and the whole feed failed): read as
    /// a browser or feedparser reads them. CDATA and comments keep their `&`s.
    @Test func htmlEntitiesAndBareAmpersands() throws {
        let feed = try FeedParser.parse(
            Data(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <rss version="2.0"><channel><title>Q&A &mdash; Caf&eacute;&nbsp;Talk</title>
                <!-- a comment with & and &nbsp; -->
                <item><title>&nbsp;</title><guid>g1</guid>
                <enclosure url="https://media.invalid/1.mp3?a=1&b=2&amp;c=3" type="audio/mpeg"/></item>
                <item><title><![CDATA[Tom & Jerry &amp; friends]]></title><guid>g2</guid>
                <link><![CDATA[https://example.invalid/?x=1&y=2]]></link>
                <description>Bells&#7; &foo; &#x26; &#38; &lt;b&gt;</description>
                <enclosure url="https://media.invalid/2.mp3" type="audio/mpeg"/></item>
                </channel></rss>
                """.utf8
            ),
            url: Self.base
        )
        #expect(feed.title == "Q&A \u{2014} Café\u{A0}Talk")
        #expect(feed.items.count == 2)
        #expect(feed.items.first?.enclosure.url.absoluteString == "https://media.invalid/1.mp3?a=1&b=2&c=3")
        #expect(feed.items.last?.title == "Tom & Jerry & friends")
        #expect(feed.items.last?.link?.absoluteString == "https://example.invalid/?x=1&y=2")
        #expect(feed.items.last?.description == "Bells &foo; & &")
    }

    /// The mending gives the same bytes however the document is cut into chunks.
    @Test func ampersandsAreMendedAcrossChunks() {
        let document = Array(
            "<a t=\"x&y\">&nbsp;&amp;&#38;&#x1F600;&#1;&bogus;<![CDATA[&nbsp;&]]><!--&--> & &hellip".utf8
        )
        let expected = Array(
            "<a t=\"x&amp;y\">&#160;&amp;&#38;&#x1F600;&amp;bogus;<![CDATA[&nbsp;&]]><!--&--> &amp; &amp;hellip".utf8
        )
        for cut in 0...document.count {
            var mender = XMLMender()
            var out: [UInt8] = []
            mender.mend(document[..<cut], into: &out)
            mender.mend(document[cut...], into: &out)
            mender.finish(into: &out)
            #expect(out == expected, "cut at \(cut): \(String(decoding: out, as: UTF8.self))")
        }
        var byteAtATime = XMLMender()
        var out: [UInt8] = []
        for byte in document { byteAtATime.mend([byte], into: &out) }
        byteAtATime.finish(into: &out)
        #expect(out == expected, "\(String(decoding: out, as: UTF8.self))")
    }

    @Test func aKnownZoneIsNoWarning() {
        #expect(FeedDates.read("Thu, 08 Jul 2004 23:56:58 MET").unknownZone == nil)
        #expect(FeedDates.read("Thu, 08 Jul 2004 23:56:58 QQQ").unknownZone == "QQQ")
    }

    /// One failing next page (RFC 5005): what was read stands, the failure is noted.
    @Test func aFailingNextPageKeepsWhatWasRead() async throws {
        let server = try await FixtureServer.start()
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let outcome = try await client.fetch(server.url("/feeds/paged.xml?page=1&broken=3"))
        try await client.shutdown()
        await server.stop()
        guard case .fetched(let feed, _, _, _) = outcome else {
            Issue.record("expected a feed, got \(outcome)")
            return
        }
        #expect(feed.items.map(\.guid) == ["paged-1", "paged-2", "paged-3", "paged-4"])
        #expect(feed.warnings.count == 1)
        #expect(feed.warnings.first?.contains("page 3 of the feed could not be read: HTTP 500") == true)
    }

    /// A move (301) to a URL that answers 304 is still a move.
    @Test func aMoveToANotModifiedFeedIsKept() async throws {
        let server = try await FixtureServer.start()
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let target = server.url("/feeds/1386867488.xml")
        guard case .fetched(_, let etag, _, _) = try await client.fetch(target) else {
            Issue.record("the target feed did not load")
            return
        }
        let outcome = try await client.fetch(server.url("/feeds/moved.xml"), etag: etag)
        try await client.shutdown()
        await server.stop()
        guard case .notModified(let movedTo) = outcome else {
            Issue.record("expected 304, got \(outcome)")
            return
        }
        #expect(movedTo == target)
    }

    /// A redirect to `file:` says so, naming the host that sent it.
    @Test func aRedirectToAFileIsRefused() async throws {
        let server = try await FixtureServer.start()
        let client = FeedClient(retry: RetryPolicy(attempts: 1))
        let error = await #expect(throws: FeedError.self) {
            try await client.fetch(server.url("/fault/redirect-file/feeds/1386867488.xml"))
        }
        try await client.shutdown()
        await server.stop()
        #expect(error?.description.contains("redirected to an unsupported URL scheme (file:) by 127.0.0.1") == true)
    }

    /// A raw control character in an outline's title is dropped, not the outline.
    @Test func anOPMLTitleWithAControlCharacterIsImported() throws {
        let document = try OPML.parse(try fixture("opml/control.opml"))
        #expect(document.entries.map(\.title) == ["Ring ring"])
        #expect(document.problems.isEmpty)
    }

    /// `file:` and `javascript:` episode URLs are left out of a lookup, and said.
    @Test func aLookupDropsEpisodesThatAreNotHTTP() async throws {
        let server = try await FixtureServer.start()
        let http = HTTPFetcher(settings: .init())
        let podcast = try await ITunesClient(baseURL: server.baseURL, http: http).lookup(id: 1_000_000_005, limit: 5)
        try await http.shutdown()
        await server.stop()
        #expect(podcast.episodes.map(\.title) == ["An honest episode"])
        #expect(podcast.warnings.count == 2)
        #expect(podcast.warnings.allSatisfy { $0.description.contains("is not an http or https URL") })
    }
}
