import FixtureData
import Foundation
import Hummingbird
import NIOCore

/// Feeds and subscription lists, for the library:
///
/// - `/feeds/{id}.xml`: the RSS feed of a podcast the lookup fixtures know, its
///   items carrying the `episodeGuid`s of the lookup (`feedsh-{trackId}`). Version V
///   of it (the fault `etag=V` or `changes=K`) adds V bonus episodes on top: a feed
///   that gained episodes. ETag and Last-Modified are sent, and a matching
///   `If-None-Match` or `If-Modified-Since` gets a 304.
/// - `/feeds/generate?n=N[&words=W]`: a feed of N items (at most 200 000) with
///   W sentences of show notes each (default 40: about 2 kB an item; 0: about
///   300 bytes).
/// - `/feeds/listening.xml`: episodes that are real audio (``ToneMedia``, at
///   `/media/tone/{seconds}.wav`) for playback; version V adds V bonus episodes.
/// - `/feeds/habits.xml`: for the listening settings: a 30 s tone silent from 5 s
///   to 15 s (`/media/gap/{seconds}-{from}-{to}.wav`), and a 40 s tone whose
///   chapters (`/chapters/sponsored.json`) hold a sponsor chapter from 10 s to
///   20 s, with a WebVTT transcript (`/transcripts/sponsored.vtt`); its artwork is
///   `/artwork/habits.jpg`.
/// - `/feeds/chaptered.xml`: one episode, `/media/chaptered.mp3`
///   (``ChapteredMedia``), whose chapters are only inside the file.
/// - `/feeds/paged.xml?page=P`: three pages of two items, linked by `rel="next"`;
///   with `&broken=K`, page K answers 500.
/// - `/chapters/tone-1.json`, `/chapters/tone-2.json`: the listening feed's
///   chapters (see ``chapters(_:)``).
/// - `/transcripts/{name}`: its transcripts (see ``transcript(_:megabytes:)``).
/// - `/feeds/moved.xml`: 301 to `/feeds/1386867488.xml`; `/feeds/gone.xml`: 410.
/// - `/feeds/huge.xml?mb=N`: a valid feed of one item padded to N MiB (default 65)
///   with a comment, streamed (never held whole).
/// - `/feeds/bomb.xml?mb=N`: a gzip bomb: about N/150 MiB that decompresses to a
///   feed of N MiB (default 1024).
/// - The body faults (`short`, `drop`, `nolength`, `empty`, `rate`) apply to every
///   feed.
/// - The `gzip` fault sends any of them gzip-encoded.
/// - `/feeds/file/{name}`: a file of `Fixtures/feeds/`; `/opml/{name}` of
///   `Fixtures/opml/` (with the `.invalid` hosts pointing here).
extension FixtureRoutes {
    func feed(_ request: Request, path: Substring, fault: Fault) -> Response {
        let host = request.head.authority
        let base = "http://\(host ?? "127.0.0.1")"
        let query = request.uri.queryParameters
        switch path {
        case "moved.xml":
            return Response(status: .movedPermanently, headers: [.location: base + "/feeds/1386867488.xml"])
        case "gone.xml":
            return .json(status: .gone, ["errorMessage": "this feed is gone"])
        case "private.xml":
            if let refusal = Self.privateRefusal(request) { return refusal }
            return conditional(request, body: Self.privateFeed(host: host), version: 0, fault: fault)
        case "generate":
            let count = min(max(query.get("n").flatMap { Int($0) } ?? 10, 0), 200_000)
            let words = min(max(query.get("words").flatMap { Int($0) } ?? 40, 0), 400)
            return conditional(
                request,
                body: Self.generatedFeed(count: count, base: base, words: words),
                version: count,
                fault: fault
            )
        case "chaptered.xml":
            let item = Self.item(
                title: "Chapters inside",
                guid: "chaptered-1",
                url: "\(base)/media/chaptered.mp3",
                date: Date(timeIntervalSince1970: 1_793_000_000),
                seconds: ChapteredMedia.seconds,
                description: "Ten seconds of silence with its chapters in its ID3 tag."
            )
            return conditional(
                request,
                body: Self.channel("Chapters Inside", author: "feedsh fixtures", items: item),
                version: 0,
                fault: fault
            )
        case "habits.xml":
            return conditional(request, body: Self.habitsFeed(base: base), version: 0, fault: fault)
        case "listening.xml":
            return conditional(
                request,
                body: Self.listeningFeed(bonus: fault.version, base: base),
                version: fault.version,
                fault: fault
            )
        case "huge.xml":
            let megabytes = min(max(query.get("mb").flatMap { Int($0) } ?? 65, 1), 4096)
            let (prefix, suffix) = Self.paddedFeed(base: base)
            let units = (megabytes << 20 - prefix.count - suffix.count) / Self.paddingUnit.count
            let length = prefix.count + units * Self.paddingUnit.count + suffix.count
            return Self.body(
                status: .ok,
                headers: [.contentType: "application/rss+xml; charset=utf-8"],
                range: 0..<length,
                fault: fault,
                rate: fault.rate
            ) { range, buffer in
                Self.fillPadded(range, into: buffer, prefix: prefix, units: units, suffix: suffix)
            }
        case "bomb.xml":
            let megabytes = min(max(query.get("mb").flatMap { Int($0) } ?? 1024, 1), 4096)
            let (prefix, suffix) = Self.paddedFeed(base: base)
            let bomb = GzipBomb(prefix: prefix, padding: megabytes << 20, suffix: suffix)
            return Self.body(
                status: .ok,
                headers: [.contentType: "application/rss+xml; charset=utf-8", .contentEncoding: "gzip"],
                range: 0..<bomb.count,
                fault: fault,
                rate: fault.rate
            ) { range, buffer in
                bomb.copy(range, into: buffer)
            }
        case "paged.xml":
            let page = min(max(query.get("page").flatMap { Int($0) } ?? 1, 1), 3)
            let broken = query.get("broken").flatMap { Int($0) }
            if page == broken {
                return .json(status: .internalServerError, ["errorMessage": "page \(page) is broken"])
            }
            return conditional(
                request,
                body: Self.pagedFeed(page: page, base: base, broken: broken),
                version: page,
                fault: fault
            )
        default:
            break
        }
        if path.hasPrefix("file/"), let bytes = FixtureFiles.all["feeds/" + path.dropFirst(5)] {
            let text = String(decoding: bytes, as: UTF8.self)
            // Encoded fixtures are served byte for byte.
            let body = text.contains("encoding=\"UTF-8\"") ? Data(Self.servedHere(text, host: host).utf8) : Data(bytes)
            return conditional(request, body: body, version: 0, fault: fault)
        }
        guard path.hasSuffix(".xml"), let id = Int64(path.dropLast(4)),
            let bytes = FixtureFiles.all["itunes/lookup-\(id).json"] ?? Self.synthesizedLookup(id),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let results = object["results"] as? [[String: Any]], let podcast = results.first
        else {
            return .json(status: .notFound, ["errorMessage": "no fixture feed \(path)"])
        }
        let body = Self.lookupFeed(
            podcast: podcast,
            episodes: Array(results.dropFirst()),
            bonus: fault.version,
            host: host
        )
        return conditional(request, body: body, version: fault.version, fault: fault)
    }

    func opml(_ request: Request, name: Substring) -> Response {
        guard let bytes = FixtureFiles.all["opml/" + name] else {
            return .json(status: .notFound, ["errorMessage": "no fixture OPML \(name)"])
        }
        let text = Self.servedHere(String(decoding: bytes, as: UTF8.self), host: request.head.authority)
        return Response(
            status: .ok,
            headers: [.contentType: "text/x-opml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    /// A 200 with validators (gzip-encoded with the `gzip` fault), or a 304 when the
    /// client already has this version.
    private func conditional(_ request: Request, body: Data, version: Int, fault: Fault) -> Response {
        let etag = "\"feed-v\(version)-\(body.count)\""
        let modified = Date(timeIntervalSince1970: 1_793_520_000 + Double(version) * 3600)
        let lastModified = httpDate(modified)
        if request.headers[.ifNoneMatch] == etag
            || (request.headers[.ifNoneMatch] == nil && request.headers[.ifModifiedSince] == lastModified)
        {
            return Response(status: .notModified, headers: [.eTag: etag, .lastModified: lastModified])
        }
        var headers: HTTPFields = [
            .contentType: "application/rss+xml; charset=utf-8", .eTag: etag, .lastModified: lastModified,
        ]
        if fault.gzip { headers[.contentEncoding] = "gzip" }
        let bytes = fault.gzip ? Gzip.stored([UInt8](body)) : [UInt8](body)
        return Self.body(status: .ok, headers: headers, range: 0..<bytes.count, fault: fault, rate: fault.rate) {
            range,
            buffer in
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[range])) }
        }
    }

    /// The start and end of `/feeds/huge.xml` and `/feeds/bomb.xml`: a channel and
    /// one item, and the padding goes between them (white space in the bomb, which
    /// is never read whole; ``paddingUnit``s in the huge feed).
    static func paddedFeed(base: String) -> (prefix: [UInt8], suffix: [UInt8]) {
        let item = item(
            title: "The one item",
            guid: "padded-1",
            url: "\(base)/media/padded/1.mp3",
            date: Date(timeIntervalSince1970: 1_790_000_000),
            seconds: 60,
            description: "An item after a great deal of padding."
        )
        let whole = String(decoding: channel("Padded Feed", author: "feedsh fixtures", items: item), as: UTF8.self)
        let cut = whole.range(of: "  </channel>")!.lowerBound
        return (Array(whole[..<cut].utf8), Array(whole[cut...].utf8))
    }

    /// A kilobyte comment: libxml2 refuses a single comment or text node of 10 MB
    /// and more, so a large feed is made of many small ones.
    static let paddingUnit = Array(("<!--" + String(repeating: " ", count: 1017) + "-->\n").utf8)

    /// Copies `range` of `prefix`, `units` ``paddingUnit``s and `suffix` into
    /// `buffer`.
    static func fillPadded(
        _ range: Range<Int>,
        into buffer: UnsafeMutableRawBufferPointer,
        prefix: [UInt8],
        units: Int,
        suffix: [UInt8]
    ) {
        let unit = paddingUnit
        let paddingEnd = prefix.count + units * unit.count
        var position = range.lowerBound
        var index = 0
        while position < range.upperBound {
            // The piece `position` is in, and where in it: copied up to its end.
            let (piece, offset): ([UInt8], Int) =
                position < prefix.count
                ? (prefix, position)
                : position < paddingEnd
                    ? (unit, (position - prefix.count) % unit.count) : (suffix, position - paddingEnd)
            let count = min(piece.count - offset, range.upperBound - position)
            piece.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[index..<index + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            }
            position += count
            index += count
        }
    }

    /// The `Authorization` header that HTTP Basic sends for `user` and `password`.
    static func basicAuthorization(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// 401 (with `WWW-Authenticate`) unless the request carries the private feed's
    /// user name and password as Basic auth.
    static func privateRefusal(_ request: Request) -> Response? {
        let expected = basicAuthorization(user: FixtureServer.privateUser, password: FixtureServer.privatePassword)
        guard request.headers[.authorization] != expected else { return nil }
        var response = Response.json(status: .unauthorized, ["errorMessage": "this feed is for members"])
        response.headers[.wwwAuthenticate] = "Basic realm=\"feedsh fixtures\""
        return response
    }

    /// `/feeds/private.xml`: a members' feed. Episode 1's audio, chapters and
    /// transcript are on this origin and want the same credentials; episode 2's is on another origin
    /// (`localhost`); episode 3's redirects from this origin to `localhost`.
    static func privateFeed(host: String?) -> Data {
        let base = "http://\(host ?? "127.0.0.1")"
        let port = host?.split(separator: ":").last.map(String.init) ?? "80"
        let elsewhere = "http://localhost:\(port)"
        let urls = [
            "\(base)/private/media/1.mp3", "\(elsewhere)/media/private-2.mp3", "\(base)/private/elsewhere/3.mp3",
        ]
        let items = urls.enumerated().map { index, url in
            item(
                title: "Members' episode \(index + 1)",
                guid: "private-\(index + 1)",
                url: url,
                date: Date(timeIntervalSince1970: 1_793_000_000 - Double(index) * 86_400),
                seconds: 600,
                description: "For members only.",
                chapters: index == 0 ? "\(base)/private/chapters/tone-1.json" : nil,
                transcripts: index == 0 ? [("\(base)/private/transcripts/tone-1.vtt", "text/vtt")] : []
            )
        }.joined()
        return channel("Members Only", author: "feedsh fixtures", items: items)
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func item(
        title: String,
        guid: String,
        url: String,
        date: Date?,
        seconds: Int?,
        description: String,
        chapters: String? = nil,
        transcripts: [(url: String, type: String)] = []
    ) -> String {
        var out = "    <item>\n      <title>\(escape(title))</title>\n"
        if let chapters {
            out += "      <podcast:chapters url=\"\(escape(chapters))\" type=\"application/json+chapters\"/>\n"
        }
        for transcript in transcripts {
            out += "      <podcast:transcript url=\"\(escape(transcript.url))\" type=\"\(escape(transcript.type))\"/>\n"
        }
        out += "      <guid isPermaLink=\"false\">\(escape(guid))</guid>\n"
        if let date {
            out += "      <pubDate>\(httpDate(date).replacingOccurrences(of: "GMT", with: "+0000"))</pubDate>\n"
        }
        out += "      <enclosure url=\"\(escape(url))\" type=\"audio/mpeg\"/>\n"
        if let seconds { out += "      <itunes:duration>\(seconds)</itunes:duration>\n" }
        out += "      <description><![CDATA[<p>\(description)</p>]]></description>\n    </item>\n"
        return out
    }

    private static func channel(_ title: String, author: String?, items: String, extra: String = "") -> Data {
        let head = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" \
            xmlns:atom="http://www.w3.org/2005/Atom" xmlns:podcast="https://podcastindex.org/namespace/1.0">
              <channel>
                <title>\(escape(title))</title>
                <itunes:author>\(escape(author ?? ""))</itunes:author>
            \(extra)
            """
        return Data((head + "\n" + items + "  </channel>\n</rss>\n").utf8)
    }

    static func lookupFeed(podcast: [String: Any], episodes: [[String: Any]], bonus: Int, host: String?) -> Data {
        let base = "http://\(host ?? "127.0.0.1")"
        let id = (podcast["collectionId"] as? NSNumber)?.int64Value ?? 0
        var items = ""
        for number in stride(from: bonus, through: 1, by: -1) {
            items += item(
                title: "Bonus episode \(number)",
                guid: "feedsh-bonus-\(id)-\(number)",
                url: "\(base)/media/\(id)/bonus-\(number).mp3",
                date: Date(timeIntervalSince1970: 1_794_000_000 + Double(number) * 86_400),
                seconds: 600,
                description: "A bonus episode that arrived later."
            )
        }
        for episode in episodes {
            guard let trackID = (episode["trackId"] as? NSNumber)?.int64Value,
                let url = episode["episodeUrl"] as? String
            else { continue }
            let date = (episode["releaseDate"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
            items += item(
                title: episode["trackName"] as? String ?? "",
                guid: episode["episodeGuid"] as? String ?? "feedsh-\(trackID)",
                url: servedHere(url, host: host),
                date: date,
                seconds: (episode["trackTimeMillis"] as? NSNumber).map { $0.intValue / 1000 },
                description: escape(episode["description"] as? String ?? "")
            )
        }
        return channel(
            podcast["collectionName"] as? String ?? "Podcast",
            author: podcast["artistName"] as? String,
            items: items
        )
    }

    static func generatedFeed(count: Int, base: String, words: Int = 40) -> Data {
        let filler = String(repeating: "Words to make an item the size of a real one. ", count: words)
        var items = ""
        items.reserveCapacity(count * 2200)
        for index in stride(from: count, through: 1, by: -1) {
            items += item(
                title: "Generated item \(index)",
                guid: "generated-\(index)",
                url: "\(base)/media/generated/\(index).mp3",
                date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3600),
                seconds: 60 + index % 3600,
                description: filler
            )
        }
        return channel("Generated Feed of \(count)", author: "feedsh fixtures", items: items)
    }

    /// The seconds of the listening feed's episodes, newest first: a long one to stop
    /// midway (tests must not race its end on a loaded machine), short ones to play
    /// to the end.
    public static let listeningSeconds = [120, 8, 4, 3, 3]

    static func listeningFeed(bonus: Int, base: String) -> Data {
        var items = ""
        for index in stride(from: bonus, through: 1, by: -1) {
            items += item(
                title: "Bonus tone \(index)",
                guid: "tone-bonus-\(index)",
                url: "\(base)/media/tone/3.wav",
                date: Date(timeIntervalSince1970: 1_793_000_000 + Double(index) * 86_400),
                seconds: 3,
                description: "Bonus episode \(index): three seconds of a tone.",
                transcripts: [("\(base)/transcripts/tone-3.json", "application/json")]
            )
        }
        for (offset, seconds) in listeningSeconds.enumerated() {
            items += item(
                title: "Tone \(offset + 1): \(seconds) seconds",
                guid: "tone-\(offset + 1)",
                url: "\(base)/media/tone/\(seconds).wav",
                date: Date(timeIntervalSince1970: 1_793_000_000 - Double(offset) * 86_400),
                seconds: seconds,
                description: "\(seconds) seconds of a 400 Hz tone.",
                // The long tone has chapters; the next one's chapters are broken.
                chapters: offset < 2 ? "\(base)/chapters/tone-\(offset + 1).json" : nil,
                transcripts: Self.listeningTranscripts[offset].map { ("\(base)/transcripts/\($0.name)", $0.type) }
            )
        }
        return channel("Tones for Listening", author: "feedsh fixtures", items: items)
    }

    /// The listening-settings feed: the sponsored tone (newest, `1:1`), then the
    /// gapped one (`1:2`).
    static func habitsFeed(base: String) -> Data {
        let items =
            item(
                title: "Sponsored: 40 seconds",
                guid: "habits-sponsored",
                url: "\(base)/media/tone/40.wav",
                date: Date(timeIntervalSince1970: 1_793_000_000),
                seconds: 40,
                description: "A tone with a sponsor chapter from 10 s to 20 s.",
                chapters: "\(base)/chapters/sponsored.json",
                transcripts: [("\(base)/transcripts/sponsored.vtt", "text/vtt")]
            )
            + item(
                title: "Gap: 30 seconds, silent from 5 to 15",
                guid: "habits-gap",
                url: "\(base)/media/gap/30-5-15.wav",
                date: Date(timeIntervalSince1970: 1_792_900_000),
                seconds: 30,
                description: "Ten seconds of silence in a tone."
            )
        return channel(
            "Listening Habits",
            author: "feedsh fixtures",
            items: items,
            extra: "    <itunes:image href=\"\(base)/artwork/habits.jpg\"/>"
        )
    }

    /// `/chapters/tone-1.json`: the long tone's chapters (one title with an
    /// escape sequence, one `toc: false` marker, out of order); `tone-2.json`: a
    /// chapter without its `startTime`.
    static func chapters(_ name: Substring) -> Response {
        let json: String
        switch name {
        case "tone-1.json":
            json = """
                {"version": "1.2.0", "chapters": [
                  {"startTime": 0, "title": "Opening", "url": "https://example.org/opening"},
                  {"startTime": 90, "title": "Close"},
                  {"startTime": 30.5, "title": "The \\u001b[31mmiddle", "img": "https://example.org/m.jpg"},
                  {"startTime": 60, "title": "A silent marker", "toc": false}
                ]}
                """
        case "tone-2.json":
            json = #"{"version": "1.2.0", "chapters": [{"title": "No start"}]}"#
        case "sponsored.json":
            json = """
                {"version": "1.2.0", "chapters": [
                  {"startTime": 0, "title": "Welcome"},
                  {"startTime": 10, "title": "Sponsor: Acme Mattresses"},
                  {"startTime": 20, "title": "The story"},
                  {"startTime": 30, "title": "Goodbye"}
                ]}
                """
        default:
            return .json(status: .notFound, ["errorMessage": "no fixture chapters \(name)"])
        }
        return Response(
            status: .ok,
            headers: [.contentType: "application/json+chapters"],
            body: .init(byteBuffer: ByteBuffer(string: json))
        )
    }

    /// The transcripts each listening episode offers, in feed order: the long tone
    /// offers plain text and WebVTT (the richer one is read), then a malformed SRT,
    /// the Index JSON, HTML with a script, and one past the size limit.
    static let listeningTranscripts: [[(name: String, type: String)]] = [
        [("tone-1.txt", "text/plain"), ("tone-1.vtt", "text/vtt")],
        [("tone-2.srt", "application/x-subrip")],
        [("tone-3.json", "application/json")],
        [("tone-4.html", "text/html")],
        [("huge.txt", "text/plain")],
    ]

    /// `/transcripts/{name}`: the listening feed's transcripts (see
    /// ``listeningTranscripts``). The long tone's WebVTT has two speakers and says
    /// "aardvark" at 1:15 (75 s), a word nothing else in the fixtures says;
    /// `huge.txt?mb=N` is N MiB of text (default 50). The `gzip` fault sends it
    /// gzip-encoded, whatever was asked.
    static func transcript(_ name: Substring, megabytes: Int?, gzip: Bool = false) -> Response {
        let (type, text): (String, String)
        switch name {
        case "tone-1.txt":
            (type, text) = ("text/plain", "Welcome to the tone.\n\nIt hums at 400 hertz.\n")
        case "tone-1.vtt":
            (type, text) = (
                "text/vtt",
                """
                WEBVTT

                00:00:00.000 --> 00:00:04.000
                <v Ada>Welcome to the tone, a steady hum.

                00:00:30.500 --> 00:00:34.000
                <v Ada>The middle part, \u{1B}]0;owned\u{07}still humming.

                00:01:15.000 --> 00:01:19.000
                <v Grace>An aardvark would not notice the difference.

                00:01:30.000 --> 00:01:34.000
                <v Grace>Closing words.

                """
            )
        case "sponsored.vtt":
            (type, text) = (
                "text/vtt",
                """
                WEBVTT

                00:00:00.000 --> 00:00:10.000
                Welcome to the habits show.

                00:00:10.000 --> 00:00:20.000
                This part is brought to you by Acme.

                00:00:20.000 --> 00:00:30.000
                The story of the quiet lighthouse begins.

                00:00:30.000 --> 00:00:40.000
                Goodbye for now.

                """
            )
        case "tone-2.srt":
            (type, text) = (
                "application/x-subrip",
                "1\n00:00:01,000 --> 00:00:02,000\nFine.\n\n2\n00:00:0x,000 --> 00:00:05,000\nBroken.\n"
            )
        case "tone-3.json":
            (type, text) = (
                "application/json",
                #"{"version": "1.0.0", "segments": [{"speaker": "Ada", "startTime": 0.5, "endTime": 2, "body": "Four seconds of tone."}]}"#
            )
        case "tone-4.html":
            (type, text) = (
                "text/html",
                "<html><script>alert('no')</script><cite>Ada:</cite><time>0:01</time><p>Three &amp; a bit seconds.</p></html>"
            )
        case "huge.txt":
            let size = min(max(megabytes ?? 50, 1), 200) << 20
            var buffer = ByteBuffer()
            buffer.writeRepeatingByte(UInt8(ascii: "a"), count: size)
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: buffer))
        default:
            return .json(status: .notFound, ["errorMessage": "no fixture transcript \(name)"])
        }
        if gzip {
            return Response(
                status: .ok,
                headers: [.contentType: type, .contentEncoding: "gzip"],
                body: .init(byteBuffer: ByteBuffer(bytes: Gzip.stored(Array(text.utf8))))
            )
        }
        return Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func pagedFeed(page: Int, base: String, broken: Int? = nil) -> Data {
        var items = ""
        for index in [page * 2 - 1, page * 2] {
            items += item(
                title: "Paged item \(index)",
                guid: "paged-\(index)",
                url: "\(base)/media/paged/\(index).mp3",
                date: Date(timeIntervalSince1970: 1_790_000_000 - Double(index) * 86_400),
                seconds: 300,
                description: "Item \(index) of a paged feed."
            )
        }
        let query = "page=\(page + 1)" + (broken.map { "&amp;broken=\($0)" } ?? "")
        let next = page < 3 ? "    <atom:link rel=\"next\" href=\"\(base)/feeds/paged.xml?\(query)\"/>" : ""
        return channel("Paged Feed", author: "feedsh fixtures", items: items, extra: next)
    }
}
