import Dispatch
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Why a feed could not be read.
public struct FeedParseError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        /// The document broke off or broke a rule of XML (libxml2's words, if any).
        case malformed(document: String, detail: String?)
        /// Well-formed, but not that kind of document (its root element, if any).
        case notA(document: String, root: String?)
        /// The items' sink refused more.
        case stopped
    }

    /// A stable, machine-readable name for the kind of error.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let description: String
        private init(_ name: String) { description = name }

        public static let malformed = Code("malformed")
        public static let wrongDocument = Code("wrong-document")
        public static let stopped = Code("stopped")
    }

    private let kind: Kind
    /// Where the parser was, when it said (1-based).
    public let line: Int?
    public let column: Int?

    private init(_ kind: Kind, line: Int? = nil, column: Int? = nil) {
        self.kind = kind
        self.line = line
        self.column = column
    }

    /// `document` (`XML`, `OPML`) broke off or broke a rule at `line`, `column`.
    static func malformed(_ document: String, detail: String?, line: Int, column: Int) -> FeedParseError {
        .init(.malformed(document: document, detail: detail), line: line, column: column)
    }

    /// Not `document` (`an RSS or Atom feed`): its root element was `root`.
    static func notA(_ document: String, root: String?, line: Int? = nil, column: Int? = nil) -> FeedParseError {
        .init(.notA(document: document, root: root), line: line, column: column)
    }

    static let stopped = FeedParseError(.stopped)

    public var code: Code {
        switch kind {
        case .malformed: .malformed
        case .notA: .wrongDocument
        case .stopped: .stopped
        }
    }

    private var place: String? {
        line.map { line in "line \(line)" + (column.map { ", column \($0)" } ?? "") }
    }

    public var description: String {
        switch kind {
        case .malformed(let document, let detail):
            "malformed \(document)" + (place.map { " at \($0)" } ?? "") + (detail.map { " (\($0))" } ?? "")
        case .notA(let document, let root):
            "not \(document)"
                + (root != nil || place != nil
                    ? " (\(root.map { "<\($0)>" } ?? "no XML")\(place.map { " at \($0)" } ?? ""))" : "")
        case .stopped: "stopped: the items could not be stored"
        }
    }
}

/// Takes parsed items as they come, in batches; false stops the parse.
public typealias FeedItemSink = @Sendable ([FeedItem]) -> Bool

/// Reads RSS 2.0 and Atom 1.0 feeds as a stream of XML events (FoundationXML's
/// `XMLParser`, libxml2's SAX parser underneath: the document is never held as a
/// tree, and libxml2 refuses entity-expansion bombs).
///
/// Namespaced elements are recognised by their prefix's namespace, and the usual
/// prefixes (`itunes`, `podcast`, `media`, `atom`, `content`) by name when a feed
/// forgets to declare them.
public enum FeedParser {
    /// Parses `data` fetched from `url` (relative links resolve against it, and
    /// against `xml:base` in Atom).
    public static func parse(_ data: Data, url: URL) throws(FeedParseError) -> Feed {
        // From a stream: libxml2 then gets the document in chunks. Given as one
        // block, it refuses documents of 10 MB and more ("huge input").
        try parse(XMLParser(stream: ChannelStream(ByteChannel(contents: data))), url: url)
    }

    /// Parses what `stream` delivers, on a thread of its own (the parser blocks
    /// while it waits for bytes), and tells the stream when it is done. Not NIO's
    /// pool for blocking work (one thread a core: eight feeds read at once would
    /// wait for each other's networks), and not Dispatch's global queue either:
    /// on Linux Swift's executor runs on its workers, and parsers blocked there
    /// starve every task until Dispatch adds threads.
    /// With a `sink`, items go to it in batches as they are parsed (a feed of
    /// thousands is never held whole) and the feed comes back without them.
    static func parse(_ channel: ByteChannel, url: URL, sink: FeedItemSink? = nil) async -> Result<Feed, FeedParseError>
    {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let result: Result<Feed, FeedParseError>
                do throws(FeedParseError) {
                    result = .success(try parse(XMLParser(stream: ChannelStream(channel)), url: url, sink: sink))
                } catch {
                    result = .failure(error)
                }
                channel.readerFinished()
                continuation.resume(returning: result)
            }
        }
    }

    /// Parses the feed spooled to `descriptor` (from its first byte) on this
    /// thread, its items going to `sink` in batches as they are parsed: a new
    /// subscription's first read, stored as it is read inside one transaction.
    /// The feed comes back without its items.
    static func parse(
        descriptor: Int32,
        url: URL,
        sink: ([FeedItem]) -> Bool
    ) throws(FeedParseError) -> Feed {
        try withoutActuallyEscaping(sink) { sink throws(FeedParseError) in
            try parse(XMLParser(stream: FeedFileStream(descriptor: descriptor)), url: url, sink: sink)
        }
    }

    private static func parse(_ parser: XMLParser, url: URL, sink: (([FeedItem]) -> Bool)? = nil)
        throws(FeedParseError) -> Feed
    {
        let handler = FeedHandler(base: url, sink: sink)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.delegate = handler
        let parsed = parser.parse()
        // libxml2 reports an undeclared prefix (`itunes:` without its xmlns, error
        // 201) and goes on: a document read to the end of its root element counts.
        // One cut short, or refused (an entity bomb), does not.
        guard !handler.sinkRefused else { throw FeedParseError.stopped }
        guard (parsed || Self.recoverable(parser.parserError)) && handler.finishedRoot else {
            let detail = parser.parserError.map { ($0 as NSError).localizedDescription }
            throw handler.sawRoot
                ? FeedParseError.malformed("XML", detail: detail, line: parser.lineNumber, column: parser.columnNumber)
                : FeedParseError.notA(
                    "an RSS or Atom feed",
                    root: handler.rootName,
                    line: parser.lineNumber,
                    column: parser.columnNumber
                )
        }
        return handler.finish()
    }

    /// libxml2's namespace errors: the names still arrive, prefixes and all.
    private static func recoverable(_ error: (any Error)?) -> Bool {
        guard let error = error as NSError? else { return false }
        return (200...204).contains(error.code)
    }
}

/// Namespaces by the URI the extensions publish.
enum FeedNamespace {
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let podcast = "https://podcastindex.org/namespace/1.0"
    static let media = "http://search.yahoo.com/mrss/"
    static let atom = "http://www.w3.org/2005/Atom"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    static let dublinCore = "http://purl.org/dc/elements/1.1/"

    /// Prefixes assumed when a feed uses one without declaring it.
    static let assumed = [
        "itunes": itunes, "podcast": podcast, "media": media, "atom": atom, "content": content, "dc": dublinCore,
    ]

    /// Other spellings seen in the wild for the same namespaces.
    static func normalized(_ uri: String) -> String {
        let lower = uri.lowercased()
        if lower.contains("itunes.com/dtds/podcast") { return itunes }
        if lower.contains("podcastindex.org/namespace") || lower.contains("github.com/podcastindex-org") {
            return podcast
        }
        if lower.contains("search.yahoo.com/mrss") { return media }
        // Atom 0.3, the draft still served by old blogs and podcast hosts.
        if lower == "http://purl.org/atom/ns#" { return atom }
        return uri
    }
}

/// The XML events of one feed, folded into a ``Feed``.
private final class FeedHandler: NSObject, XMLParserDelegate {
    /// An element on the stack: its namespace and local name, its attributes, the
    /// text inside it and the base URL in force.
    struct Element {
        var namespace: String
        var name: String
        var attributes: [String: String]
        var text = ""
        var base: URL
        var prefixes: [String: String]
        /// Inside an Atom text construct of `type="xhtml"`: the text of child
        /// elements (the markup's) belongs to the construct.
        var xhtml = false
    }

    /// The most text kept of one element: a title or show notes are far shorter,
    /// and a hostile feed cannot grow one string to the size limit.
    static let textLimit = 4 << 20

    /// What an item collects before it becomes a ``FeedItem``.
    struct PendingItem {
        var guid: String?
        var title: String?
        var description: String?
        var summary: String?
        var contentEncoded: String?
        var published: Date?
        var updated: Date?
        var duration: Duration?
        var enclosures: [Enclosure] = []
        var link: URL?
        var artworkURL: URL?
        var season: Int?
        var episode: Int?
        var chaptersURL: URL?
        var transcripts: [Transcript] = []
        var funding: [Funding] = []
        var persons: [String] = []
    }

    private(set) var sawRoot = false
    /// The root element ended: the document was read whole.
    private(set) var finishedRoot = false
    private(set) var rootName: String?
    private var isAtom = false
    /// The default namespace an `<rss>` root declared (UserLand's and Harvard's
    /// RSS 2.0 namespaces are seen): its elements are RSS's own.
    private var rssNamespace: String?
    private var stack: [Element] = []
    private var feed = Feed()
    private var item: PendingItem?
    private var itemIndex = 0
    private let base: URL

    /// Where items go in batches, if anywhere.
    private let sink: (([FeedItem]) -> Bool)?
    static let batchSize = 250
    /// The sink said stop.
    private(set) var sinkRefused = false

    init(base: URL, sink: (([FeedItem]) -> Bool)? = nil) {
        self.base = base
        self.sink = sink
    }

    /// Hands the items parsed so far to the sink (with one) and forgets them.
    private func flush(_ parser: XMLParser?) {
        guard let sink, !feed.items.isEmpty, !sinkRefused else { return }
        if !sink(feed.items) {
            sinkRefused = true
            parser?.abortParsing()
        }
        feed.items.removeAll(keepingCapacity: true)
    }

    func finish() -> Feed {
        flush(nil)
        feed.title = FeedText.line(feed.title)
        return feed
    }

    // MARK: XMLParserDelegate

    func parser(
        _ parser: XMLParser,
        didStartElement qualifiedName: String,
        namespaceURI: String?,
        qualifiedName _: String?,
        attributes: [String: String] = [:]
    ) {
        var prefixes = stack.last?.prefixes ?? [:]
        for (key, value) in attributes where key == "xmlns" || key.hasPrefix("xmlns:") {
            prefixes[key == "xmlns" ? "" : String(key.dropFirst(6))] = FeedNamespace.normalized(value)
        }
        let (namespace, name) = resolve(qualifiedName, prefixes)
        var elementBase = stack.last?.base ?? base
        if let xmlBase = attributes["xml:base"], let resolved = URL(string: xmlBase, relativeTo: elementBase) {
            elementBase = resolved.absoluteURL
        }
        if stack.isEmpty {
            rootName = qualifiedName
            switch name {
            case "rss":
                sawRoot = true
                if !namespace.isEmpty { rssNamespace = namespace }
            case "RDF": sawRoot = true
            case "feed":
                sawRoot = true
                isAtom = true
            default: parser.abortParsing()
            }
        }
        let element = Element(
            namespace: namespace,
            name: name,
            attributes: attributes,
            base: elementBase,
            prefixes: prefixes,
            xhtml: stack.last?.xhtml == true || (isAtom && attributes["type"] == "xhtml")
        )
        stack.append(element)
        if isItemElement(element) {
            item = PendingItem()
            itemIndex += 1
            return
        }
        startedEmpty(element)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        append(String(decoding: CDATABlock, as: UTF8.self))
    }

    /// Text of the innermost element; not of the containers (the channel, the
    /// feed, an item), whose text is only the white space between their children.
    private func append(_ string: String) {
        guard let top = stack.last, !isContainer(top), top.text.utf8.count < Self.textLimit else { return }
        stack[stack.count - 1].text += string
    }

    private func isContainer(_ element: Element) -> Bool {
        stack.count == 1 || isItemElement(element) || (element.name == "channel" && isPlain(element))
    }

    func parser(
        _ parser: XMLParser,
        didEndElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty { finishedRoot = sawRoot }
        if element.xhtml, stack.last?.xhtml == true {
            // Markup inside an xhtml title or summary: its text is the parent's.
            stack[stack.count - 1].text += element.text
            return
        }
        if isItemElement(element) {
            finishItem()
            if feed.items.count >= Self.batchSize { flush(parser) }
            return
        }
        ended(element)
    }

    // MARK: Elements

    private func resolve(_ qualified: String, _ prefixes: [String: String]) -> (String, String) {
        guard let colon = qualified.firstIndex(of: ":") else {
            return (prefixes[""] ?? "", qualified)
        }
        let prefix = String(qualified[..<colon])
        let local = String(qualified[qualified.index(after: colon)...])
        let namespace = prefixes[prefix] ?? FeedNamespace.assumed[prefix.lowercased()] ?? prefix
        return (namespace, local)
    }

    private func isItemElement(_ element: Element) -> Bool {
        isAtom ? element.name == "entry" && isAtomNamespace(element) : element.name == "item" && isPlain(element)
    }

    private func isAtomNamespace(_ element: Element) -> Bool {
        element.namespace == FeedNamespace.atom || element.namespace.isEmpty
    }

    /// An element of RSS itself (no namespace, or RSS 1.0's).
    private func isPlain(_ element: Element) -> Bool {
        element.namespace.isEmpty || element.namespace == rssNamespace
            || element.namespace.hasPrefix("http://purl.org/rss/1.0")
    }

    /// Elements whose content is in their attributes act when they start, so that
    /// self-closing ones count.
    private func startedEmpty(_ element: Element) {
        let a = element.attributes
        switch (element.namespace, element.name) {
        case (_, "enclosure") where isPlain(element) && item != nil:
            if let url = a["url"].flatMap({ resolveURL($0, element) }) {
                item?.enclosures.append(Enclosure(url: url, type: a["type"], length: a["length"].flatMap { Int64($0) }))
            }
        case (FeedNamespace.media, "content") where item != nil:
            if let url = a["url"].flatMap({ resolveURL($0, element) }) {
                let type = a["type"] ?? a["medium"].map { $0 == "audio" ? "audio/mpeg" : $0 }
                item?.enclosures.append(Enclosure(url: url, type: type, length: a["fileSize"].flatMap { Int64($0) }))
            }
        case (FeedNamespace.itunes, "image"):
            if let url = a["href"].flatMap({ resolveURL($0, element) }) {
                if item != nil { item?.artworkURL = url } else { feed.artworkURL = url }
            }
        case (FeedNamespace.podcast, "chapters") where item != nil:
            item?.chaptersURL = a["url"].flatMap { resolveURL($0, element) }
        case (FeedNamespace.podcast, "transcript") where item != nil:
            if let url = a["url"].flatMap({ resolveURL($0, element) }) {
                item?.transcripts.append(Transcript(url: url, type: a["type"]))
            }
        case (_, "link") where isAtom || element.namespace == FeedNamespace.atom:
            atomLink(element)
        default:
            break
        }
    }

    /// `<link rel="..." href="...">` in Atom, or `<atom:link>` in RSS.
    private func atomLink(_ element: Element) {
        guard let href = element.attributes["href"], let url = resolveURL(href, element) else { return }
        let rel = element.attributes["rel"] ?? "alternate"
        switch rel {
        case "enclosure":
            item?.enclosures.append(
                Enclosure(
                    url: url,
                    type: element.attributes["type"],
                    length: element.attributes["length"].flatMap { Int64($0) }
                )
            )
        case "next" where item == nil: feed.nextPage = url
        case "alternate" where item != nil: if item?.link == nil { item?.link = url }
        case "alternate": feed.link = feed.link ?? url
        default: break
        }
    }

    private func ended(_ element: Element) {
        var text = trimmed(element.text)
        if isAtom { text = atomText(text, element.attributes) }
        let inItem = item != nil
        let depth = stack.count  // the element itself is already popped
        // A child of the item itself, or of the channel or feed itself: not of an
        // `<image>` or an Atom `<source>` inside them.
        let ofItem = inItem && stack.last.map(isItemElement) == true
        let ofFeed = !inItem && (depth == 1 || (depth == 2 && stack.last?.name == "channel"))
        switch (element.namespace, element.name) {
        case (let ns, "title") where isPlain(element) || ns == FeedNamespace.atom:
            if ofItem {
                if !text.isEmpty || item?.title == nil { item?.title = text }
            } else if ofFeed {
                if feed.title.isEmpty { feed.title = text }
            }
        case (FeedNamespace.itunes, "title") where ofItem,
            (FeedNamespace.dublinCore, "title") where ofItem,
            (FeedNamespace.media, "title") where inItem:
            // Stand-ins when the item has no title of its own.
            if item?.title?.isEmpty ?? true { item?.title = text }
        case (FeedNamespace.dublinCore, "title") where ofFeed:
            if feed.title.isEmpty { feed.title = text }
        case (_, "guid") where isPlain(element) && inItem:
            item?.guid = text.isEmpty ? nil : text
        case (let ns, "id") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && inItem:
            item?.guid = text.isEmpty ? nil : text
        case (let ns, "description") where isPlain(element) || ns == FeedNamespace.itunes:
            if inItem {
                if item?.description == nil { item?.description = text }
            } else if depth <= 2 || ns == FeedNamespace.itunes {
                feed.description = feed.description ?? FeedText.plain(text)
            }
        case (FeedNamespace.itunes, "summary"):
            if inItem { item?.summary = text } else { feed.description = feed.description ?? FeedText.plain(text) }
        case (FeedNamespace.content, "encoded") where inItem:
            item?.contentEncoded = text
        case (let ns, "summary") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && inItem:
            item?.summary = text
        case (let ns, "content") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && inItem:
            item?.contentEncoded = text
        case (let ns, "subtitle") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && !inItem,
            (let ns, "tagline") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && !inItem:
            feed.description = feed.description ?? FeedText.plain(text)
        case (_, "pubDate") where ofItem, (_, "date") where ofItem:
            item?.published = date(text)
        case (let ns, "published") where ofItem && (ns.isEmpty || ns == FeedNamespace.atom),
            (let ns, "issued") where ofItem && isAtom && (ns.isEmpty || ns == FeedNamespace.atom),
            (let ns, "created") where ofItem && isAtom && (ns.isEmpty || ns == FeedNamespace.atom):
            // `issued` and `created` are Atom 0.3's.
            if item?.published == nil || element.name == "published" || element.name == "issued" {
                item?.published = date(text)
            }
        case (let ns, "updated") where ofItem && (ns.isEmpty || ns == FeedNamespace.atom),
            (let ns, "modified") where ofItem && isAtom && (ns.isEmpty || ns == FeedNamespace.atom):
            item?.updated = date(text)
        case (FeedNamespace.itunes, "duration") where inItem:
            item?.duration = FeedDurations.parse(text)
        case (_, "link") where isPlain(element) && !isAtom:
            if let url = resolveURL(text, element) {
                if inItem { item?.link = url } else if depth <= 2 { feed.link = feed.link ?? url }
            }
        case (FeedNamespace.itunes, "author") where !inItem:
            feed.author = feed.author ?? FeedText.line(text)
        case (_, "managingEditor") where !inItem && isPlain(element):
            feed.author = feed.author ?? FeedText.line(text)
        case (let ns, "name") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom) && !inItem:
            if stack.last?.name == "author", depth <= 3 { feed.author = feed.author ?? FeedText.line(text) }
        case (_, "url") where !inItem && stack.last?.name == "image" && isPlain(element):
            feed.artworkURL = feed.artworkURL ?? resolveURL(text, element)
        case (let ns, "logo") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom),
            (let ns, "icon") where isAtom && (ns.isEmpty || ns == FeedNamespace.atom):
            feed.artworkURL = feed.artworkURL ?? resolveURL(text, element)
        case (FeedNamespace.itunes, "new-feed-url") where !inItem:
            feed.newFeedURL = resolveURL(text, element)
        case (FeedNamespace.itunes, "season") where inItem:
            if item?.season == nil { item?.season = Int(text) }
        case (FeedNamespace.itunes, "episode") where inItem:
            if item?.episode == nil { item?.episode = Int(text) }
        case (FeedNamespace.podcast, "season") where inItem:
            if let season = Int(text) { item?.season = season }
        case (FeedNamespace.podcast, "episode") where inItem:
            if let number = Int(text) ?? Double(text).map({ Int($0) }) { item?.episode = number }
        case (FeedNamespace.podcast, "guid") where !inItem:
            feed.podcastGUID = text.isEmpty ? nil : text
        case (FeedNamespace.podcast, "locked") where !inItem:
            feed.locked = text.lowercased() == "yes" || text.lowercased() == "true"
        case (FeedNamespace.podcast, "funding"):
            if let url = element.attributes["url"].flatMap({ resolveURL($0, element) }) {
                let funding = Funding(url: url, text: text.isEmpty ? nil : FeedText.line(text))
                if inItem { item?.funding.append(funding) } else { feed.funding.append(funding) }
            }
        case (FeedNamespace.podcast, "person") where inItem:
            if !text.isEmpty { item?.persons.append(FeedText.line(text)) }
        default:
            break
        }
    }

    /// The text of an Atom text construct: markup (`type` `html`, `xhtml`, or a
    /// MIME type such as Atom 0.3's `text/html`) made plain; Atom 0.3's
    /// `mode="base64"` decoded first and `mode="escaped"` read as HTML.
    private func atomText(_ text: String, _ attributes: [String: String]) -> String {
        var text = text
        let mode = attributes["mode"]?.lowercased()
        if mode == "base64" {
            let compact = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: compact, options: .ignoreUnknownCharacters) else { return "" }
            text = String(decoding: data, as: UTF8.self)
        }
        let type = attributes["type"]?.lowercased() ?? ""
        if type.contains("html") || mode == "escaped" { return FeedText.plain(text) }
        return text
    }

    /// A date, with a warning on the feed when its zone was not known (and so
    /// taken as UTC).
    private func date(_ text: String) -> Date? {
        let reading = FeedDates.read(text)
        if let zone = reading.unknownZone {
            feed.warnings.append(
                "item \(itemIndex): unknown time zone '\(FeedText.line(zone))' in '\(FeedText.line(text))', taken as UTC"
            )
        }
        return reading.date
    }

    private func finishItem() {
        guard let pending = item else { return }
        item = nil
        let number = itemIndex
        // With several enclosures, the audio one.
        guard let enclosure = pending.enclosures.first(where: \.isAudio) ?? pending.enclosures.first else {
            feed.warnings.append("skipped item \(number): it has no audio (no enclosure)")
            return
        }
        let title = FeedText.line(pending.title ?? "")
        let published = pending.published ?? pending.updated
        let guid =
            pending.guid
            ?? enclosure.url.absoluteString.nonEmpty
            ?? "\(title)|\(published.map { String(Int($0.timeIntervalSince1970)) } ?? "")"
        let html = [pending.contentEncoded, pending.description, pending.summary].compactMap { $0 }.first {
            !$0.isEmpty
        }
        feed.items.append(
            FeedItem(
                guid: guid,
                title: title.isEmpty ? "(untitled)" : title,
                description: html.map(FeedText.plain),
                published: published,
                duration: pending.duration,
                enclosure: enclosure,
                link: pending.link,
                artworkURL: pending.artworkURL,
                season: pending.season,
                episode: pending.episode,
                chaptersURL: pending.chaptersURL,
                transcripts: pending.transcripts,
                funding: pending.funding.isEmpty ? feed.funding : pending.funding,
                persons: pending.persons,
                notes: html.flatMap(ShowNotes.markup)
            )
        )
    }

    /// `text` without ASCII blanks at its ends (Foundation's trimming goes through
    /// UTF-16 on Linux, and every element passes here).
    private func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        func blank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        guard let first = utf8.firstIndex(where: { !blank($0) }), let last = utf8.lastIndex(where: { !blank($0) })
        else { return "" }
        if first == utf8.startIndex, last == utf8.index(before: utf8.endIndex) { return text }
        return String(text[first...last])
    }

    private func resolveURL(_ text: String, _ element: Element) -> URL? {
        let trimmed = trimmed(text)
        guard !trimmed.isEmpty, let url = URL(string: trimmed, relativeTo: element.base)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
