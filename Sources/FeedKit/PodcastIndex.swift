import Crypto
import Foundation

/// The key and secret of a Podcast Index account (https://api.podcastindex.org).
public struct PodcastIndexCredentials: Sendable, Equatable {
    public let key: String
    public let secret: String

    public init(key: String, secret: String) {
        self.key = key
        self.secret = secret
    }

    /// The `Authorization` header for a request made at `date` (Unix seconds): the
    /// lowercase hex SHA-1 of key, secret and date written one after another. A plain
    /// hash, not an HMAC.
    public func authorization(date: Int64) -> String {
        Insecure.SHA1.hash(data: Data((key + secret + String(date)).utf8))
            .map { String(format: "%02x", $0) }.joined()
    }
}

/// The Podcast Index API (`/api/1.0`): a search of the open directory, with its
/// key-and-hash authentication on every request.
public struct PodcastIndexClient: Sendable {
    /// The API root, `https://api.podcastindex.org/api/1.0` unless configured.
    public let baseURL: URL
    let credentials: PodcastIndexCredentials
    let http: any HTTPFetching

    public init(baseURL: URL, credentials: PodcastIndexCredentials, http: any HTTPFetching) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.http = http
    }

    /// `{base}/search/byterm?q=TERM&max=N`.
    public func searchURL(term: String, limit: Int) -> URL {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("search").appendingPathComponent("byterm"),
            resolvingAgainstBaseURL: false
        )!
        components.queryItems = [URLQueryItem(name: "q", value: term), URLQueryItem(name: "max", value: String(limit))]
        return components.url!
    }

    /// The headers that sign a request made at `date`.
    public func headers(date: Date = Date()) -> [(name: String, value: String)] {
        let seconds = Int64(date.timeIntervalSince1970)
        return [
            ("X-Auth-Key", credentials.key),
            ("X-Auth-Date", String(seconds)),
            ("Authorization", credentials.authorization(date: seconds)),
        ]
    }

    /// Feeds whose title, author or owner match `term`, as search results that
    /// `open` loads by their feed URL. A refused key is ``FeedError/Code/unauthorized``,
    /// naming the key and where it came from.
    public func search(term: String, limit: Int) async throws(FeedError) -> [PodcastSearchResult] {
        let url = searchURL(term: term, limit: limit)
        do {
            let reply = try await http.decode(SearchReply.self, from: url, headers: headers())
            return reply.feeds.results.prefix(limit).map(\.result)
        } catch  where error.status == 401 || error.status == 403 {
            throw .unauthorized(
                url: url,
                detail:
                    "the Podcast Index at \(url.host ?? "?") refused key '\(credentials.key)' (HTTP \(error.status ?? 0))",
                keyRefused: true
            )
        }
    }

    /// `{"status": "true", "feeds": [...], "count": N, ...}`; a feed that does not
    /// decode is skipped.
    private struct SearchReply: Decodable {
        let feeds: LenientArray<IndexFeed>
    }

    /// One feed of a search reply: its Index ID, title, feed URL and what the list
    /// shows.
    struct IndexFeed: Decodable {
        let id: Int64
        let title: String
        let url: URL
        let author: String?
        let episodeCount: Int?
        let categories: [String: String]?

        var result: PodcastSearchResult {
            PodcastSearchResult(
                id: id,
                title: title,
                artist: author.flatMap { $0.isEmpty ? nil : $0 },
                episodeCount: episodeCount,
                genre: categories?.sorted { (Int($0.key) ?? 0) < (Int($1.key) ?? 0) }.first?.value,
                feedURL: url,
                directory: .podcastIndex
            )
        }
    }
}
