import Foundation
import HTTPSupport
import PlainText

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// OPML subscription lists, as gPodder, AntennaPod, castero and Apple Podcasts
/// export them.
public enum OPML {
    /// One feed of an OPML file.
    public struct Entry: Sendable, Equatable {
        public var title: String?
        public var feedURL: URL

        public init(title: String?, feedURL: URL) {
            self.title = title
            self.feedURL = feedURL
        }
    }

    /// What a file held: its feeds, in order, and the outlines that could not be
    /// used, in words.
    public struct Document: Sendable, Equatable {
        public var entries: [Entry] = []
        public var problems: [String] = []
    }

    /// Reads every outline with an `xmlUrl` (`type="rss"`, or no type), however
    /// deeply nested in folders.
    public static func parse(_ data: Data) throws(FeedParseError) -> Document {
        let handler = OPMLHandler()
        // Through a channel, as feeds are read: the control characters XML forbids
        // (a raw one in a title stopped libxml2, and the outline was lost) are
        // dropped on the way in.
        let parser = XMLParser(stream: ChannelStream(ByteChannel(contents: data)))
        parser.shouldResolveExternalEntities = false
        parser.delegate = handler
        guard parser.parse(), handler.sawOPML else {
            throw handler.sawOPML
                ? FeedParseError.malformed("OPML", detail: nil, line: parser.lineNumber, column: parser.columnNumber)
                : FeedParseError.notA("an OPML file", root: nil)
        }
        return handler.document
    }

    /// An OPML 2.0 document of `entries`.
    public static func write(_ entries: [Entry], title: String = "feedsh subscriptions", date: Date = Date()) -> String
    {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0">
              <head>
                <title>\(escape(title))</title>
                <dateCreated>\(HTTPDate.format(date))</dateCreated>
              </head>
              <body>

            """
        for entry in entries {
            let text = escape(entry.title ?? entry.feedURL.absoluteString)
            out +=
                "    <outline type=\"rss\" text=\"\(text)\" title=\"\(text)\" xmlUrl=\"\(escape(entry.feedURL.absoluteString))\"/>\n"
        }
        out += "  </body>\n</opml>\n"
        return out
    }

    static func escape(_ text: String) -> String {
        XMLText.escape(text)
    }
}

private final class OPMLHandler: NSObject, XMLParserDelegate {
    var document = OPML.Document()
    private(set) var sawOPML = false
    private var depth = 0
    private var outlines = 0

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        depth += 1
        if depth == 1 {
            guard elementName.lowercased() == "opml" else { return parser.abortParsing() }
            sawOPML = true
        }
        guard elementName.lowercased() == "outline" else { return }
        outlines += 1
        // Attribute names vary in case between exporters (xmlUrl, xmlURL).
        let lowered = Dictionary(attributes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let link = lowered["xmlurl"] else { return }
        let type = lowered["type"]?.lowercased()
        let title = (lowered["title"] ?? lowered["text"]).map(FeedText.line)
        guard type == nil || type == "rss" || type == "atom" || type == "link" else {
            document.problems.append("outline \(outlines) (\(title ?? link)): type '\(type ?? "")' is not a feed")
            return
        }
        guard let url = URL(string: link.trimmingCharacters(in: .whitespaces)),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            document.problems.append(
                "outline \(outlines) (\(title ?? "untitled")): '\(FeedText.line(link))' is not an http(s) URL"
            )
            return
        }
        document.entries.append(OPML.Entry(title: title, feedURL: url))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
    }
}
