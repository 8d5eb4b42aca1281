import Foundation

/// A successful response's head and body, as ``HTTPFetching`` gives it.
public struct HTTPBody: Sendable {
    public let url: URL
    public let contentType: String?
    public let data: Data

    public init(url: URL, contentType: String?, data: Data) {
        self.url = url
        self.contentType = contentType
        self.data = data
    }
}

/// The HTTP side of the API clients (iTunes, Podcast Index, posts, the Met),
/// chapters and transcripts: GET a URL into a bounded body, or fail with a
/// ``FeedError`` that names it. ``HTTPFetcher`` does it over the network; a test
/// hands a client an in-memory fake, so that what is tested is the client and
/// not a server.
public protocol HTTPFetching: Sendable {
    /// GETs `url` and returns its body, which must come with a 2xx status and be
    /// at most `limit` bytes. `headers` are sent besides the user agent and
    /// `Accept` (an API's own authentication).
    func get(_ url: URL, headers: [(name: String, value: String)], limit: Int) async throws(FeedError) -> HTTPBody

    /// Lets the network go, when this fetcher owns it.
    func shutdown() async throws
}

extension HTTPFetching {
    public func get(_ url: URL, headers: [(name: String, value: String)] = []) async throws(FeedError) -> HTTPBody {
        try await get(url, headers: headers, limit: 32 << 20)
    }

    public func shutdown() async throws {}

    /// GETs `url` and checks that the body looks like JSON; a web page, an empty body
    /// or binary data becomes ``FeedError/Code/notJSON``.
    public func getJSON(_ url: URL, headers: [(name: String, value: String)] = []) async throws(FeedError) -> HTTPBody {
        let body = try await get(url, headers: headers)
        let first = body.data.first { !(" \t\r\n" as String).utf8.contains($0) }
        let typeSaysHTML = body.contentType?.lowercased().contains("html") ?? false
        guard !typeSaysHTML, first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
            throw .notJSON(url: url, contentType: body.contentType, byteCount: body.data.count)
        }
        return body
    }

    /// GETs JSON and decodes it as `T`; a decoding failure names the URL and the
    /// key path (or, for bad syntax, the body's size).
    public func decode<T: Decodable>(
        _ type: T.Type,
        from url: URL,
        headers: [(name: String, value: String)] = []
    ) async throws(FeedError) -> T {
        let body = try await getJSON(url, headers: headers)
        do {
            return try JSONDecoder().decode(T.self, from: body.data)
        } catch {
            throw FeedError(decoding: error, url: url, byteCount: body.data.count)
        }
    }

}

/// What reads feeds: a conditional GET of `url` (and the pages it links),
/// parsed. ``FeedClient`` does it over the network; a test hands the updater an
/// in-memory fake.
public protocol FeedFetching: Sendable {
    /// Fetches and parses the feed at `url`, conditionally when validators are
    /// given. With a `sink`, the items go to it in batches and the feed comes back
    /// without them. `credentials` go to `url`'s origin only.
    func fetch(
        _ url: URL,
        etag: String?,
        lastModified: String?,
        credentials: FeedCredentials?,
        sink: FeedItemSink?
    ) async throws(FeedError) -> FeedClient.Outcome

    /// The first read of a new subscription: `url` fetched unconditionally, its
    /// first page kept in `spool` to be parsed where it is stored (pages after it
    /// are fetched as an update's are). A fetcher may parse it instead.
    func fetchFirstRead(
        _ url: URL,
        credentials: FeedCredentials?,
        spool: SpooledFeed
    ) async throws(FeedError) -> FirstRead

    /// Lets the network go.
    func shutdown() async throws
}

/// What the first read of a new subscription found.
public enum FirstRead: Sendable {
    /// The first page's body is in the spool, read from `base` (where the
    /// redirects ended); `movedHere` is that URL when every hop was permanent.
    case spooled(base: URL, etag: String?, lastModified: String?, movedHere: URL?)
    /// The feed, parsed whole (every page), from a fetcher that does not spool.
    case parsed(Feed, etag: String?, lastModified: String?, movedTo: URL?)
    /// 304 (to a request that named no validators).
    case notModified(movedTo: URL?)
    /// 410: the feed is gone for good.
    case gone
}

extension FeedFetching {
    /// Parses the whole feed (every page) as ``fetch(_:etag:lastModified:credentials:sink:)``
    /// does: a fetcher that does not spool (a test's fake).
    public func fetchFirstRead(
        _ url: URL,
        credentials: FeedCredentials?,
        spool: SpooledFeed
    ) async throws(FeedError) -> FirstRead {
        switch try await fetch(url, etag: nil, lastModified: nil, credentials: credentials, sink: nil) {
        case .fetched(let feed, let etag, let lastModified, let movedTo):
            .parsed(feed, etag: etag, lastModified: lastModified, movedTo: movedTo)
        case .notModified(let movedTo): .notModified(movedTo: movedTo)
        case .gone: .gone
        }
    }

    /// Fetches and parses the feed at `url` unconditionally, all of it at once.
    public func fetch(_ url: URL) async throws(FeedError) -> FeedClient.Outcome {
        try await fetch(url, etag: nil, lastModified: nil, credentials: nil, sink: nil)
    }
}
