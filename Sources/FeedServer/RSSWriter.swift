import Foundation
import PlainText

/// A feed `feedsh serve` writes: a subscription's downloaded episodes, all of
/// them, or the queue.
public struct ServedFeed: Sendable, Equatable {
    public var title: String
    public var description: String
    public var author: String?
    /// The podcast's artwork, as its feed gave it.
    public var artworkURL: String?
    public var items: [ServedItem]

    public init(
        title: String,
        description: String,
        author: String? = nil,
        artworkURL: String? = nil,
        items: [ServedItem]
    ) {
        self.title = title
        self.description = description
        self.author = author
        self.artworkURL = artworkURL
        self.items = items
    }
}

/// One downloaded episode in a served feed.
public struct ServedItem: Sendable, Equatable {
    /// The GUID its own feed gave it, so that an app matches it with the original.
    public var guid: String
    public var title: String
    public var podcastTitle: String
    public var date: Date?
    public var description: String?
    public var seconds: Double?
    /// The file's path under the download folder (`1386867488/1000700000001.mp3`),
    /// served at `/media/` + it.
    public var mediaPath: String
    /// The file's exact length in bytes, and its type.
    public var length: Int64
    public var type: String
    public var artworkURL: String?
    public var chaptersURL: String?
    public var transcripts: [(url: String, type: String)]

    public init(
        guid: String,
        title: String,
        podcastTitle: String,
        date: Date?,
        description: String?,
        seconds: Double?,
        mediaPath: String,
        length: Int64,
        type: String,
        artworkURL: String? = nil,
        chaptersURL: String? = nil,
        transcripts: [(url: String, type: String)] = []
    ) {
        self.guid = guid
        self.title = title
        self.podcastTitle = podcastTitle
        self.date = date
        self.description = description
        self.seconds = seconds
        self.mediaPath = mediaPath
        self.length = length
        self.type = type
        self.artworkURL = artworkURL
        self.chaptersURL = chaptersURL
        self.transcripts = transcripts
    }

    public static func == (lhs: ServedItem, rhs: ServedItem) -> Bool {
        lhs.guid == rhs.guid && lhs.title == rhs.title && lhs.mediaPath == rhs.mediaPath && lhs.length == rhs.length
            && lhs.date == rhs.date && lhs.description == rhs.description && lhs.seconds == rhs.seconds
            && lhs.chaptersURL == rhs.chaptersURL && lhs.transcripts.map(\.url) == rhs.transcripts.map(\.url)
    }
}

/// Writes RSS 2.0 with the iTunes and Podcasting 2.0 namespaces. Pure.
public enum RSSWriter {
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let podcast = "https://podcastindex.org/namespace/1.0"

    /// The feed, its enclosures on `base` (`http://host:port`, or with a path).
    public static func write(_ feed: ServedFeed, base: String, link: String) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="\(itunes)" xmlns:podcast="\(podcast)">
            <channel>
              <title>\(escape(feed.title))</title>
              <link>\(escape(link))</link>
              <description>\(escape(feed.description))</description>
              <generator>feedsh serve</generator>

            """
        if let author = feed.author { out += "  <itunes:author>\(escape(author))</itunes:author>\n" }
        if let artwork = feed.artworkURL {
            out += "  <itunes:image href=\"\(escape(artwork))\"/>\n"
            out += "  <image><url>\(escape(artwork))</url><title>\(escape(feed.title))</title>"
            out += "<link>\(escape(link))</link></image>\n"
        }
        for item in feed.items {
            out += "  <item>\n"
            out += "    <title>\(escape(item.title))</title>\n"
            out += "    <guid isPermaLink=\"false\">\(escape(item.guid))</guid>\n"
            if let date = item.date { out += "    <pubDate>\(rfc822(date))</pubDate>\n" }
            if let description = item.description, !description.isEmpty {
                out += "    <description>\(escape(description))</description>\n"
            }
            let url = base + "/media/" + percentEncoded(item.mediaPath)
            out += "    <enclosure url=\"\(escape(url))\" length=\"\(item.length)\" type=\"\(escape(item.type))\"/>\n"
            if let seconds = item.seconds, seconds.isFinite, seconds > 0 {
                out += "    <itunes:duration>\(Int(seconds.rounded()))</itunes:duration>\n"
            }
            if let artwork = item.artworkURL { out += "    <itunes:image href=\"\(escape(artwork))\"/>\n" }
            if let chapters = item.chaptersURL {
                out += "    <podcast:chapters url=\"\(escape(chapters))\" type=\"application/json+chapters\"/>\n"
            }
            for transcript in item.transcripts {
                out +=
                    "    <podcast:transcript url=\"\(escape(transcript.url))\" type=\"\(escape(transcript.type))\"/>\n"
            }
            out += "  </item>\n"
        }
        out += "</channel>\n</rss>\n"
        return out
    }

    /// Text as XML character data or an attribute value.
    public static func escape(_ text: String) -> String {
        XMLText.escape(text)
    }

    /// `Tue, 10 Jun 2003 04:00:00 GMT`, as RSS 2.0 dates are written.
    public static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A media path with each segment percent-encoded (its slashes kept).
    static func percentEncoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0)
        }.joined(separator: "/")
    }
}
