import Foundation

/// A podcast found by a directory's search: Apple's (by the iTunes search API) or
/// the Podcast Index.
public struct PodcastSearchResult: Decodable, Sendable, Hashable, Identifiable {
    /// The directory's ID: Apple's collection ID, or the Index's feed ID.
    public let id: Int64
    public let title: String
    public let artist: String?
    /// Episodes in all (`trackCount`).
    public let episodeCount: Int?
    public let genre: String?
    /// The RSS feed, when the directory gave it.
    public let feedURL: URL?
    /// Which directory found it: what `open` asks for its episodes.
    public let directory: Directory

    /// The directories feedsh searches.
    public enum Directory: String, Sendable, Hashable {
        /// Apple's: `open` looks the podcast up by ``PodcastSearchResult/id``.
        case apple
        /// The Podcast Index: `open` reads the feed at ``PodcastSearchResult/feedURL``.
        case podcastIndex = "podcastindex"
    }

    public init(
        id: Int64,
        title: String,
        artist: String? = nil,
        episodeCount: Int? = nil,
        genre: String? = nil,
        feedURL: URL? = nil,
        directory: Directory = .apple
    ) {
        self.id = id
        self.title = title
        self.artist = artist
        self.episodeCount = episodeCount
        self.genre = genre
        self.feedURL = feedURL
        self.directory = directory
    }

    private enum Keys: String, CodingKey {
        case collectionId, collectionName, artistName, trackCount, primaryGenreName, feedUrl
    }

    /// An iTunes search result.
    public init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Keys.self)
        id = try record.decode(Int64.self, forKey: .collectionId)
        title = try record.decode(String.self, forKey: .collectionName)
        artist = try record.decodeIfPresent(String.self, forKey: .artistName)
        episodeCount = try? record.decodeIfPresent(Int.self, forKey: .trackCount)
        genre = try? record.decodeIfPresent(String.self, forKey: .primaryGenreName)
        feedURL = (try? record.decodeIfPresent(String.self, forKey: .feedUrl)).flatMap { URL(httpString: $0) }
        directory = .apple
    }
}

/// `{"resultCount": N, "results": [...]}` where each result decodes on its own: one
/// bad record is skipped, not fatal.
struct SearchResponse<Result: Decodable>: Decodable {
    let results: [Result]
    let skipped: Int

    private enum Keys: String, CodingKey { case results }

    init(from decoder: any Decoder) throws {
        let list = try decoder.container(keyedBy: Keys.self).decode(LenientArray<Result>.self, forKey: .results)
        results = list.results
        skipped = list.skipped
    }
}

/// A JSON array whose elements decode on their own: one bad element is counted and
/// skipped, not fatal.
struct LenientArray<Element: Decodable>: Decodable {
    let results: [Element]
    let skipped: Int

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var results: [Element] = []
        var skipped = 0
        while !container.isAtEnd {
            switch try container.decode(Lenient<Element>.self).result {
            case .success(let result): results.append(result)
            case .failure: skipped += 1
            }
        }
        self.results = results
        self.skipped = skipped
    }
}

extension ITunesClient {
    /// `{base}/search?media=podcast&term=TERM&limit=N`.
    public func searchURL(term: String, media: String, entity: String? = nil, limit: Int) -> URL {
        var query = [
            URLQueryItem(name: "media", value: media),
            URLQueryItem(name: "term", value: term),
            URLQueryItem(name: "limit", value: String(limit)),
        ]
        if let entity { query.insert(URLQueryItem(name: "entity", value: entity), at: 1) }
        return endpoint("search", query: query)
    }

    /// Podcasts matching `term`; an empty array when there are none.
    public func searchPodcasts(term: String, limit: Int) async throws(FeedError) -> [PodcastSearchResult] {
        let url = searchURL(term: term, media: "podcast", limit: limit)
        return try await http.decode(SearchResponse<PodcastSearchResult>.self, from: url).results
    }
}
